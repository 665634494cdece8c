import cluster from "node:cluster";
import { safeEqual } from "@server/lib/crypto";
import { MESSAGES } from "@shared/messages";
import fp from "fastify-plugin";
import type pg from "pg";
import { AggregatorRegistry, Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { clusterMetrics } from "../cluster";

export type LookupOutcome = "verified" | "failed" | "rate_limited";

/** The counters the services and routes feed; the request histogram is fed by the plugin itself. */
export type Metrics = {
  readonly registry: Registry;
  codeGenerated(): void;
  codeLookup(outcome: LookupOutcome): void;
  webhookDelivery(outcome: string): void;
  /** a request refused by a rate limit; `limit` names it (the route it guards) */
  rateLimited(limit: string): void;
};

declare module "fastify" {
  interface FastifyInstance {
    metrics: Metrics;
  }
}

/** The metric set of one app, in its own registry (several apps may live in one test process). */
export function createMetrics(pool?: pg.Pool): Metrics & { requestDuration: Histogram<string> } {
  const registry = new Registry();
  const requestDuration = new Histogram({
    name: "http_request_duration_seconds",
    help: "Time to answer an HTTP request, by method, route template and status code",
    labelNames: ["method", "route", "status_code"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const generated = new Counter({
    name: "callproof_codes_generated_total",
    help: "Identity codes generated",
    registers: [registry],
  });
  const lookups = new Counter({
    name: "callproof_code_lookups_total",
    help: "Identity code look-ups from the widget, by outcome",
    labelNames: ["outcome"],
    registers: [registry],
  });
  const webhooks = new Counter({
    name: "callproof_webhook_deliveries_total",
    help: "Webhook delivery attempts, by outcome",
    labelNames: ["outcome"],
    registers: [registry],
  });
  const refusals = new Counter({
    name: "callproof_rate_limit_refusals_total",
    help: "Requests refused by a rate limit (429), by the limit's route",
    labelNames: ["limit"],
    registers: [registry],
  });
  for (const outcome of ["verified", "failed", "rate_limited"]) lookups.inc({ outcome }, 0);

  if (pool) {
    const gauge = (name: string, help: string, read: () => number) =>
      new Gauge({
        name,
        help,
        registers: [registry],
        collect() {
          this.set(read());
        },
      });
    gauge("callproof_db_pool_connections", "Open PostgreSQL connections in the pool", () => pool.totalCount);
    gauge("callproof_db_pool_idle_connections", "Idle PostgreSQL connections in the pool", () => pool.idleCount);
    gauge("callproof_db_pool_waiting_requests", "Queries waiting for a pooled connection", () => pool.waitingCount);
  }

  return {
    registry,
    requestDuration,
    codeGenerated: () => generated.inc(),
    codeLookup: (outcome) => lookups.inc({ outcome }),
    webhookDelivery: (outcome) => webhooks.inc({ outcome }),
    rateLimited: (limit) => refusals.inc({ limit }),
  };
}

/**
 * Prometheus metrics. Counting always happens; GET /metrics serves them only when METRICS_TOKEN is set
 * (bearer token, 401 without it; 404 when unset). With several workers, every worker's figures are
 * summed by the primary process, whichever worker answers.
 */
export default fp<{ pool?: pg.Pool }>(
  async (app, opts) => {
    const metrics = createMetrics(opts.pool);
    app.decorate("metrics", metrics);

    app.addHook("onResponse", async (request, reply) => {
      const route = request.routeOptions.url ?? "unmatched";
      const labels = { method: request.method, route, status_code: String(reply.statusCode) };
      metrics.requestDuration.observe(labels, reply.elapsedTime / 1000);
      if (reply.statusCode === 429) metrics.rateLimited(route);
    });

    const token = app.deps.config.metricsToken;
    if (!token) {
      // Not an app page either: without a token there is nothing at /metrics.
      app.get("/metrics", { logLevel: "warn", schema: { hide: true } }, async (_request, reply) =>
        reply.code(404).send({ message: MESSAGES.notFound }),
      );
      return;
    }

    collectDefaultMetrics({ register: metrics.registry });
    if (cluster.isWorker) {
      // Lets the primary's AggregatorRegistry ask this worker for its figures.
      new AggregatorRegistry();
      AggregatorRegistry.setRegistries([metrics.registry]);
    }

    app.get("/metrics", { logLevel: "warn", schema: { hide: true } }, async (request, reply) => {
      const given = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
      if (!given || !safeEqual(given, token)) {
        return reply
          .code(401)
          .header("www-authenticate", 'Bearer realm="metrics"')
          .send({ message: "A valid metrics token is required." });
      }
      const text = cluster.isWorker ? await clusterMetrics() : await metrics.registry.metrics();
      return reply.header("content-type", metrics.registry.contentType).header("cache-control", "no-store").send(text);
    });
  },
  { name: "metrics", fastify: "5.x" },
);
