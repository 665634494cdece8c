import fp from "fastify-plugin";
import { applyRetention } from "./retention";

const HOUR_MS = 3_600_000;

/** Retention runs at start and every hour in every process (the statements are idempotent). */
export default fp(
  async (app) => {
    app.deps.background.every("retention", HOUR_MS, () => applyRetention(app.deps).then(() => false), {
      firstAfterMs: 0,
    });
  },
  { name: "retention-job", dependencies: ["deps"] },
);
