import type { Feature } from "@server/features/feature";
import { CALL_LIMITS } from "@shared/calls";
import { callEventsPlugin } from "./live";
import { endCallsOfErased } from "./repository";
import callsRoutes from "./routes";
import { applyCallsRetention, endCallsOfDeactivated, endDueCalls, exportCallsOf } from "./service";
import statusRoutes from "./status-routes";

export { customerHash, openCustomerRef, sealCustomerRef } from "./customer";
export { callsErrors } from "./errors";
export type { CallEvents } from "./live";
export { CALL_EVENTS_CHANNEL } from "./repository";
export { activeOwnCallId, answerCheck, type CallStatus, callStatusOf } from "./service";
export { startDiallerCall } from "./v1-service";

const HOUR_MS = 60 * 60_000;

/** Calls (contract, "Calls"): status in the customer's own app, and checks in both directions. */
export const callsFeature: Feature = {
  name: "calls",
  purpose: "Calls with customers: live call status for the customer's own app, and checks in both directions.",
  tables: ["calls", "customer_checks", "call_status_tokens"],
  plugins: [callEventsPlugin],
  routes: async (app) => {
    await callsRoutes(app);
    await statusRoutes(app);
  },
  jobs: [
    // Calls past their endsAt, of ended sessions or deactivated accounts end, and checks expire, within a second.
    {
      name: "calls: ends and expiries",
      everyMs: CALL_LIMITS.sweepEveryMs,
      run: (app) => endDueCalls(app.deps, app.callEvents),
    },
    // At start, then hourly: calls older than RETENTION_CALLS_DAYS go.
    { name: "calls retention", everyMs: HOUR_MS, firstAfterMs: 5_000, run: (app) => applyCallsRetention(app.deps) },
  ],
  onDeactivated: (deps, userIds) => endCallsOfDeactivated(deps, userIds),
  // Calls are kept (the organisation's record), without the person's name: the users row's erasure blanks it.
  // Their active call ends.
  erase: (tx, person, now) => endCallsOfErased(tx, person.id, now),
  exportFor: (deps, person) => exportCallsOf(deps, person),
};
