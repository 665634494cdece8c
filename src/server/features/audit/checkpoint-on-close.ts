import fp from "fastify-plugin";
import { checkpointAudit } from "./chain";

/** A graceful stop checkpoints every event written before it (after the background work has stopped). */
export default fp(
  async (app) => {
    app.addHook("onClose", async () => {
      await checkpointAudit(app.deps).catch((err) => app.log.warn({ err }, "the closing audit checkpoint failed"));
    });
  },
  { name: "audit-checkpoint-on-close", dependencies: ["deps"] },
);
