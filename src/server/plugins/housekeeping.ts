import { deleteExpiredTokens } from "@server/features/auth/repository";
import { deleteCodesExpiredBefore } from "@server/features/codes/repository";
import { deleteReportsBefore } from "@server/features/reports/repository";
import { REPORTS_KEPT_MS } from "@server/features/reports/service";
import { deleteExpiredSessions } from "@server/features/users/repository";
import { deleteFinishedDeliveriesBefore } from "@server/features/webhooks/repository";
import fp from "fastify-plugin";

const EVERY_MS = 10 * 60_000;
/** Identity codes are deleted a day after they expire. */
const CODES_KEPT_MS = 86_400_000;
/** Finished webhook deliveries are kept 30 days (the dashboard shows the last 20). */
const DELIVERIES_KEPT_MS = 30 * 86_400_000;

/**
 * Every 10 minutes, expired rows go (rate limits, sessions, tokens, day-old codes, month-old finished
 * webhook deliveries, year-old reported calls); never the audit log.
 */
export default fp(
  async (app) => {
    const { db, clock, limits, log } = app.deps;
    const sweep = setInterval(() => {
      const now = clock.now();
      Promise.all([
        limits.deleteExpired(now),
        deleteExpiredSessions(db, now),
        deleteExpiredTokens(db, now),
        deleteCodesExpiredBefore(db, new Date(now.getTime() - CODES_KEPT_MS)),
        deleteFinishedDeliveriesBefore(db, new Date(now.getTime() - DELIVERIES_KEPT_MS)),
        deleteReportsBefore(db, new Date(now.getTime() - REPORTS_KEPT_MS)),
      ]).catch((err) => log.warn({ err }, "housekeeping failed"));
    }, EVERY_MS);
    sweep.unref();
    app.addHook("onClose", async () => clearInterval(sweep));
  },
  { name: "housekeeping", dependencies: ["deps"] },
);
