import path from "node:path";
import { fileURLToPath } from "node:url";
import cookie from "@fastify/cookie";
import { MAX_BODY_BYTES } from "@shared/constants";
import Fastify, { type FastifyServerOptions } from "fastify";
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import accountRoutes from "./features/account/routes";
import activityRoutes from "./features/activity/routes";
import adminRoutes from "./features/admin/routes";
import alertsJob from "./features/alerts/job";
import alertsRoutes from "./features/alerts/routes";
import retentionJob from "./features/audit/retention-job";
import auditRoutes from "./features/audit/routes";
import authRoutes from "./features/auth/routes";
import codeEvents from "./features/codes/live";
import codesRoutes from "./features/codes/routes";
import employerRoutes from "./features/employer/routes";
import onboardingRoutes from "./features/onboarding/routes";
import reportsRoutes from "./features/reports/routes";
import reportSummaries from "./features/reports/summary-job";
import siteRecheck from "./features/sites/recheck-job";
import sitesRoutes from "./features/sites/routes";
import session from "./features/users/session";
import webhooksRoutes from "./features/webhooks/routes";
import webhookWorker from "./features/webhooks/worker";
import { loggerOptions } from "./lib/logger";
import deps, { type DepsOptions } from "./plugins/deps";
import errorHandler from "./plugins/error-handler";
import health from "./plugins/health";
import housekeeping from "./plugins/housekeeping";
import metrics from "./plugins/metrics";
import openapi from "./plugins/openapi";
import requestId, { requestIdServerOptions } from "./plugins/request-id";
import securityHeaders from "./plugins/security-headers";
import staticFiles from "./plugins/static";
import type { App } from "./types";

export const webRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../dist/web");

export type AppOptions = DepsOptions & { logger?: FastifyServerOptions["logger"] };

/** Builds the whole server (API, web app, widget) without listening. The caller owns the database. */
export async function buildApp({ logger, ...opts }: AppOptions): Promise<App> {
  const { config } = opts;
  const app = Fastify({
    logger: logger ?? loggerOptions(config),
    ...requestIdServerOptions,
    bodyLimit: MAX_BODY_BYTES,
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

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  await app.register(deps, opts);
  await app.register(errorHandler);
  await app.register(requestId);
  await app.register(metrics, { pool: opts.database.pool });
  await app.register(health);
  await app.register(openapi);
  await app.register(cookie);
  await app.register(session);
  await app.register(securityHeaders);
  await app.register(housekeeping);
  await app.register(codeEvents);

  await app.register(
    async (api) => {
      await api.register(authRoutes);
      await api.register(onboardingRoutes);
      await api.register(codesRoutes);
      await api.register(adminRoutes);
      await api.register(employerRoutes);
      await api.register(auditRoutes);
      await api.register(accountRoutes);
      await api.register(sitesRoutes);
      await api.register(reportsRoutes);
      await api.register(activityRoutes);
      await api.register(webhooksRoutes);
      await api.register(alertsRoutes);
    },
    { prefix: "/api" },
  );

  await app.register(staticFiles, { root: webRoot });

  await app.register(siteRecheck);
  await app.register(reportSummaries);
  await app.register(webhookWorker);
  await app.register(alertsJob);
  await app.register(retentionJob);

  return app;
}
