import fp from "fastify-plugin";
import { mailDueReportSummaries } from "./service";

const EVERY_MS = 60_000;

/**
 * Sends the reported-calls summaries held back by the 10-minute gap: every minute, in every process
 * (each organisation's reports are claimed by one of them).
 */
export default fp(
  async (app) => {
    let running = false;
    const every = setInterval(() => {
      if (running) return;
      running = true;
      mailDueReportSummaries(app.deps)
        .catch((err) => app.log.warn({ err }, "reported-calls summaries failed"))
        .finally(() => {
          running = false;
        });
    }, EVERY_MS);
    every.unref();
    app.addHook("onClose", async () => clearInterval(every));
  },
  { name: "report-summaries", dependencies: ["deps"] },
);
