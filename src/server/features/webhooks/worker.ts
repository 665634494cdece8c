import { batched } from "@server/lib/batched";
import fp from "fastify-plugin";
import { WEBHOOK_WAKE_CHANNEL } from "./outbox";
import { bringPendingForward } from "./repository";
import { attemptDelivery, claimDeliveries, type Finished, recordFinished, WEBHOOK_FAIRNESS } from "./service";

/** Due retries are looked for this often; new events and finished deliveries wake the worker at once. */
const POLL_MS = 2_000;
/**
 * Deliveries this process has in flight at once: twice an endpoint's largest share (service.ts), so that
 * one endpoint that earned it and then stops answering leaves as many slots to the others.
 */
export const WORKER_IN_FLIGHT = 2 * WEBHOOK_FAIRNESS.mostPerEndpoint;

/**
 * The webhook worker of this process, a job on the background runner. Each turn claims as many due
 * deliveries as it has free slots (fairly per endpoint, within each endpoint's share, none for a paused
 * one) and starts each on its own: a slow or dead receiver holds its own slot until its timeout, never a
 * batch. The attempts that end meanwhile are written together, one statement a batch (group commit), and
 * each frees its slot once written. A finished delivery and a new event (any process's, through
 * LISTEN/NOTIFY) wake the worker at once; every 2 s it looks for due retries. On start, pending deliveries
 * are made due, so that a restart tries them again soon. Shutdown stops the runner, which waits for the
 * deliveries in flight and their writes.
 */
export default fp(
  async (app) => {
    const deps = app.deps;
    const inFlight = new Set<number>();
    const record = batched<Finished>((finished) => recordFinished(deps, finished));
    let unlisten = async () => {};
    app.addHook("onReady", async () => {
      await bringPendingForward(deps.db, deps.clock.now()).catch((err) =>
        deps.log.warn({ err }, "could not bring pending webhook deliveries forward"),
      );
      const job = deps.background.every("webhook deliveries", POLL_MS, async () => {
        const free = WORKER_IN_FLIGHT - inFlight.size;
        if (free <= 0) return false;
        const claimed = await claimDeliveries(deps, free);
        for (const delivery of claimed) {
          inFlight.add(delivery.id);
          deps.background.run("webhook delivery", async () => {
            try {
              const finished = await attemptDelivery(deps, delivery);
              // Not written (the database failed): its lease runs out and it is tried again, at least once.
              await record(finished);
              app.metrics.webhookDelivery(finished.outcome);
            } finally {
              inFlight.delete(delivery.id);
              job.wake();
            }
          });
        }
        // More may be due than there were free slots: look again at once while slots remain.
        return claimed.length > 0 && inFlight.size < WORKER_IN_FLIGHT;
      });
      unlisten = await deps.notifications.listen(WEBHOOK_WAKE_CHANNEL, job.wake, job.wake);
      job.wake();
    });
    app.addHook("preClose", async () => {
      await unlisten();
    });
  },
  { name: "webhook-worker", dependencies: ["deps", "metrics"] },
);
