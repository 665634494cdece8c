import fp from "fastify-plugin";
import { WEBHOOK_WAKE_CHANNEL } from "./outbox";
import { bringPendingForward } from "./repository";
import { deliverDue } from "./service";

/** Due retries are looked for this often; new events wake the worker at once. */
const POLL_MS = 2_000;

/**
 * The webhook worker of this process, a job on the background runner: sends due deliveries when woken
 * by a new event (any process's, through LISTEN/NOTIFY) and every 2 s for retries, one batch after
 * another while there are due deliveries. On start, pending deliveries are made due, so that a restart
 * tries them again soon. Shutdown stops the runner, which waits for the batch in flight.
 */
export default fp(
  async (app) => {
    const deps = app.deps;
    let unlisten = async () => {};
    app.addHook("onReady", async () => {
      await bringPendingForward(deps.db, deps.clock.now()).catch((err) =>
        deps.log.warn({ err }, "could not bring pending webhook deliveries forward"),
      );
      const job = deps.background.every("webhook deliveries", POLL_MS, async () => {
        const outcomes = await deliverDue(deps);
        for (const outcome of outcomes) app.metrics.webhookDelivery(outcome);
        return outcomes.length > 0;
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
