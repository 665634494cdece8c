/** What other features use of webhooks: queuing an event's deliveries in the statement that makes the event. */
export { queueDeliveries, wakeWorkers } from "./outbox";
export { eraseFromDeliveries } from "./repository";
