import type { Socket } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import cookie from "@fastify/cookie";
import { MAX_BODY_BYTES } from "@shared/constants";
import Fastify, { type FastifyInstance, type FastifyServerOptions } from "fastify";
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import { FEATURES } from "./features";
import { loggerOptions } from "./lib/logger";
import deps, { type DepsOptions } from "./plugins/deps";
import errorHandler, { frameworkErrors } from "./plugins/error-handler";
import health from "./plugins/health";
import metrics from "./plugins/metrics";
import openapi from "./plugins/openapi";
import requestId, { requestIdServerOptions } from "./plugins/request-id";
import routeTable from "./plugins/route-table";
import securityHeaders from "./plugins/security-headers";
import staticFiles from "./plugins/static";
import unstorableText from "./plugins/unstorable-text";
import type { App } from "./types";

export const webRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../dist/web");

export type AppOptions = DepsOptions & { logger?: FastifyServerOptions["logger"] };

/** Expired rows go this often: rate limits, and each feature's own (sessions, tokens, old codes…). */
const HOUSEKEEPING_EVERY_MS = 10 * 60_000;

/** One housekeeping turn: the rate limits' expired rows, then each feature's sweep; never the audit log. */
async function sweepExpired(app: App) {
  const { deps } = app;
  const now = deps.clock.now();
  await deps.limits.deleteExpired(now);
  for (const feature of deps.features) await feature.sweep?.(deps, now);
}

/** Builds the whole server (API, web app, widget) without listening. The caller owns the database. */
export async function buildApp({ logger, ...opts }: AppOptions): Promise<App> {
  const { config } = opts;
  const app = Fastify({
    logger: logger ?? loggerOptions(config),
    ...requestIdServerOptions,
    bodyLimit: MAX_BODY_BYTES,
    // No limit on a path parameter's length (Fastify's 100 answered a 414 quoting the URL, before any
    // route's authentication): a long id reaches its route, which answers 401 or its own 404. Node's
    // header limit (16 KB) still bounds the request line.
    routerOptions: { maxParamLength: Number.MAX_SAFE_INTEGER },
    frameworkErrors,
    // A hop count trusts that many proxies nearest to the server, whatever their addresses.
    trustProxy:
      typeof config.trustProxy === "number"
        ? (
            (hops: number) => (_address: string, hop: number) =>
              hop < hops
          )(config.trustProxy)
        : config.trustProxy,
    forceCloseConnections: "idle",
    return503OnClosing: true,
  }).withTypeProvider<ZodTypeProvider>();

  closeConnectionsOnStop(app);

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  await app.register(deps, { ...opts, features: FEATURES });
  await app.register(routeTable);
  await app.register(errorHandler);
  await app.register(unstorableText);
  await app.register(requestId);
  await app.register(metrics, { pool: opts.database.pool });
  await app.register(health);
  // The document's tags: one per feature with routes, described by its purpose.
  await app.register(openapi, {
    tags: FEATURES.filter((f) => f.routes).map((f) => ({ name: f.name, description: f.purpose })),
  });
  await app.register(cookie);
  for (const feature of FEATURES) for (const plugin of feature.plugins ?? []) await app.register(plugin);
  await app.register(securityHeaders);

  await app.register(
    async (api) => {
      for (const feature of FEATURES) {
        const routes = feature.routes;
        if (!routes) continue;
        // Each route carries its feature as its OpenAPI tag: /api/docs maps a URL to its folder.
        await api.register(async (scope) => {
          scope.addHook("onRoute", (route) => {
            route.schema = { ...route.schema, tags: [feature.name] };
          });
          await routes(scope);
        });
      }
    },
    { prefix: "/api" },
  );

  await app.register(staticFiles, { root: webRoot });

  const { background } = app.deps;
  for (const feature of FEATURES) {
    for (const job of feature.jobs ?? []) {
      background.every(job.name, job.everyMs, () => job.run(app).then((more) => more === true), {
        firstAfterMs: job.firstAfterMs,
      });
    }
  }
  background.every("housekeeping", HOUSEKEEPING_EVERY_MS, () => sweepExpired(app));

  return app;
}

/**
 * The stop waits for no connection that has nothing left to answer. Fastify closes the idle connections once,
 * as the stop begins, and answers later requests `Connection: close`; two kinds escaped it and held the stop
 * (in production until its drain limit, in tests for a minute): a connection busy at that moment, which went
 * idle afterwards and was kept for the keep-alive timeout (72 s) by a client that honours `Keep-Alive:
 * timeout` (fetch, browsers), and a connection opened but never used (a browser's preconnect, a pooled
 * client's spare), which Node counts as neither idle nor busy. The first now closes once answered, the
 * second at once.
 */
function closeConnectionsOnStop(app: FastifyInstance) {
  const sockets = new Set<Socket>();
  app.server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  app.addHook("preClose", async () => {
    // keepAliveTimeoutBuffer: Node 24's margin added to the timeout (1 s), not yet in our @types/node.
    Object.assign(app.server, { keepAliveTimeout: 1, keepAliveTimeoutBuffer: 0 });
    for (const socket of sockets) if (socket.bytesRead === 0) socket.destroy();
  });
}
