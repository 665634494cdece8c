import type { FastifyInstance } from "fastify";
import type { Database } from "./db/client";

/** How long in-flight requests get to finish before their connections are cut. */
export const DRAIN_TIMEOUT_MS = 10_000;

const sleep = (ms: number) => new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), ms).unref());

/**
 * A graceful stop: readiness says 503 first (for `delayMs`, so a load balancer stops sending traffic),
 * then the server stops accepting connections and lets the requests in flight finish (at most
 * `timeoutMs`), then the database closes.
 */
export async function gracefulStop(
  app: FastifyInstance,
  database: Pick<Database, "close">,
  opts: { delayMs: number; timeoutMs?: number },
): Promise<void> {
  app.markStopping();
  if (opts.delayMs > 0) await sleep(opts.delayMs);
  const closed = await Promise.race([
    app.close().then(() => "closed" as const),
    sleep(opts.timeoutMs ?? DRAIN_TIMEOUT_MS),
  ]);
  if (closed === "timeout") {
    app.log.warn("requests still in flight after the time limit: closing their connections");
    app.server.closeAllConnections();
  }
  await database.close();
}
