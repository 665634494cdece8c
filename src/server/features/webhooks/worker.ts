import fp from "fastify-plugin";
import { WEBHOOK_WAKE_CHANNEL } from "./outbox";
import { bringPendingForward } from "./repository";
import { deliverDue } from "./service";

/** Due retries are looked for this often; new events wake the worker at once. */
const POLL_MS = 2_000;

/**
 * The webhook worker of this process: sends due deliveries when woken by a new event (any process's,
 * through LISTEN/NOTIFY) and every 2 s for retries. On start, pending deliveries are made due, so that a
 * restart tries them again soon.
 */
export default fp(
  async (app) => {
    const deps = app.deps;
    let running: Promise<void> | null = null;
    let again = false;
    let stopped = false;
    const run = () => {
      if (stopped) return;
      if (running) {
        again = true;
        return;
      }
      running = (async () => {
        do {
          again = false;
          try {
            const outcomes = await deliverDue(deps);
            for (const outcome of outcomes) app.metrics.webhookDelivery(outcome);
            if (outcomes.length > 0) again = true;
          } catch (err) {
            deps.log.warn({ err }, "webhook deliveries failed");
          }
        } while (again && !stopped);
      })().finally(() => {
        running = null;
      });
    };
    let timer: NodeJS.Timeout | undefined;
    let unlisten = async () => {};
    app.addHook("onReady", async () => {
      await bringPendingForward(deps.db, deps.clock.now()).catch((err) =>
        deps.log.warn({ err }, "could not bring pending webhook deliveries forward"),
      );
      unlisten = await deps.notifications.listen(WEBHOOK_WAKE_CHANNEL, run, run);
      timer = setInterval(run, POLL_MS);
      timer.unref();
      run();
    });
    app.addHook("preClose", async () => {
      stopped = true;
      clearInterval(timer);
      await unlisten();
      await running;
    });
  },
  { name: "webhook-worker", dependencies: ["deps", "metrics"] },
);
