/** What other features use of webhooks: queuing an event's deliveries in the statement that makes the event. */
import type { Feature } from "@server/features/feature";
import { deleteFinishedDeliveriesBefore, eraseFromDeliveries } from "./repository";
import webhooksRoutes from "./routes";
import webhookWorker from "./worker";

export { queueDeliveries, wakeWorkersAfterCommit } from "./outbox";

const DAY_MS = 24 * 60 * 60_000;

export const webhooksFeature: Feature = {
  name: "webhooks",
  purpose: "Signed events to the organisation's own systems, from a database outbox.",
  tables: ["webhook_endpoints", "webhook_deliveries"],
  plugins: [webhookWorker],
  routes: webhooksRoutes,
  // Finished deliveries are kept 30 days (the dashboard shows the last 20).
  sweep: (deps, now) => deleteFinishedDeliveriesBefore(deps.db, new Date(now.getTime() - 30 * DAY_MS)),
  // Deliveries' payloads name people (a code's employee): pending and kept ones no longer name this one.
  erase: (tx, person) => eraseFromDeliveries(tx, person),
};
