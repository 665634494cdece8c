import cluster from "node:cluster";
import { AggregatorRegistry } from "prom-client";

const METRICS_REQUEST = "callproof:metrics-request";
const METRICS_ANSWER = "callproof:metrics-answer";
/** How long a worker waits for the primary's aggregated metrics. */
const METRICS_WAIT_MS = 5000;
/** How long the primary waits for its workers to stop before it ends them. */
const STOP_WAIT_MS = 30_000;

type MetricsRequest = { type: typeof METRICS_REQUEST; id: number };
type MetricsAnswer = { type: typeof METRICS_ANSWER; id: number; text?: string; error?: string };

const isMessage = <T extends { type: string }>(m: unknown, type: T["type"]): m is T =>
  typeof m === "object" && m !== null && (m as { type?: unknown }).type === type;

/**
 * Runs `workers` processes of this same script on one port (node:cluster shares the listening socket).
 * The primary serves no requests: it starts the workers one after the other (the first migrates the
 * database alone), starts a new one when one dies, aggregates their metrics, and on SIGTERM/SIGINT
 * passes the signal on and waits for them to finish.
 */
export function runPrimary(workers: number, log: (line: string) => void): void {
  const aggregator = new AggregatorRegistry();
  let stopping = false;

  cluster.on("message", (worker, message: unknown) => {
    if (!isMessage<MetricsRequest>(message, METRICS_REQUEST)) return;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: METRICS_ANSWER, id: message.id, text } satisfies MetricsAnswer),
      (err: Error) => worker.send({ type: METRICS_ANSWER, id: message.id, error: err.message } satisfies MetricsAnswer),
    );
  });

  const fork = () =>
    new Promise<void>((resolve) => {
      const worker = cluster.fork();
      worker.once("listening", () => resolve());
      worker.once("exit", () => resolve());
    });

  cluster.on("exit", (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      return;
    }
    log(`worker ${worker.process.pid} ended (${signal ?? `exit code ${code}`}); starting a new one`);
    setTimeout(() => void fork(), 1000);
  });

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log(`${signal} received: stopping ${workers} workers`);
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
    setTimeout(() => process.exit(1), STOP_WAIT_MS).unref();
    if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));

  void (async () => {
    for (let i = 0; i < workers && !stopping; i++) await fork();
    log(`${workers} workers serving`);
  })();
}

let nextRequest = 0;

/** In a worker: the metrics of every worker, summed by the primary. */
export function clusterMetrics(): Promise<string> {
  const id = nextRequest++;
  return new Promise((resolve, reject) => {
    const onMessage = (message: unknown) => {
      if (!isMessage<MetricsAnswer>(message, METRICS_ANSWER) || message.id !== id) return;
      done();
      if (message.error !== undefined) reject(new Error(message.error));
      else resolve(message.text ?? "");
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error("the primary process did not answer with the cluster's metrics"));
    }, METRICS_WAIT_MS);
    const done = () => {
      clearTimeout(timer);
      process.off("message", onMessage);
    };
    process.on("message", onMessage);
    process.send?.({ type: METRICS_REQUEST, id } satisfies MetricsRequest);
  });
}
