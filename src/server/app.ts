import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import cookie from "@fastify/cookie";
import fastifyStatic from "@fastify/static";
import { MAX_BODY_BYTES } from "@shared/constants";
import { MESSAGES } from "@shared/messages";
import { lt } from "drizzle-orm";
import Fastify, { type FastifyServerOptions } from "fastify";
import { serializerCompiler, validatorCompiler } from "fastify-type-provider-zod";
import type { Config } from "./config";
import type { Database } from "./db/client";
import { identityCodes, rateLimits, sessions, verificationTokens } from "./db/schema";
import adminRoutes from "./features/admin/routes";
import auditRoutes from "./features/audit/routes";
import authRoutes from "./features/auth/routes";
import codesRoutes from "./features/codes/routes";
import employerRoutes from "./features/employer/routes";
import onboardingRoutes from "./features/onboarding/routes";
import { scheduleSiteRecheck } from "./features/sites/recheck-job";
import sitesRoutes from "./features/sites/routes";
import { AuditLog } from "./lib/audit";
import { type Clock, systemClock } from "./lib/clock";
import { RateLimiter } from "./lib/rate-limit";
import { type Mailer, outboxMailer, smtpMailer } from "./mail/mailer";
import { registerErrorHandler } from "./plugins/error-handler";
import { registerSessions } from "./plugins/session";
import type { App } from "./types";

export const webRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../dist/web");

export type AppOptions = {
  config: Config;
  database: Database;
  mailer?: Mailer;
  clock?: Clock;
  logger?: FastifyServerOptions["logger"];
};

const SECURITY_HEADERS = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'; object-src 'none'",
};

/** Builds the whole server (API, web app, widget) without listening. The caller owns the database. */
export async function buildApp(opts: AppOptions): Promise<App> {
  const { config, database } = opts;
  const app = Fastify({
    logger: opts.logger ?? { level: config.logLevel, redact: ["req.headers.cookie", "req.headers['x-xsrf-token']"] },
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
  }).withTypeProvider<import("fastify-type-provider-zod").ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  const clock = opts.clock ?? systemClock;
  app.decorate("config", config);
  app.decorate("db", database.db);
  app.decorate("dbKind", database.kind);
  app.decorate("clock", clock);
  app.decorate(
    "mailer",
    opts.mailer ??
      (config.smtpUrl
        ? smtpMailer(config.smtpUrl, config.mailFrom)
        : outboxMailer(config.dataDir, config.mailFrom, (line) => app.log.info(line))),
  );
  app.decorate("audit", new AuditLog(database.db, () => clock.now()));
  app.decorate("limits", new RateLimiter(database.db));

  registerErrorHandler(app);
  await app.register(cookie);
  registerSessions(app);

  app.addHook("onSend", async (request, reply) => {
    reply.headers(SECURITY_HEADERS);
    if (request.url.startsWith("/api/")) reply.header("cache-control", "no-store");
  });

  await app.register(
    async (api) => {
      await api.register(authRoutes);
      await api.register(onboardingRoutes);
      await api.register(codesRoutes);
      await api.register(adminRoutes);
      await api.register(employerRoutes);
      await api.register(auditRoutes);
      await api.register(sitesRoutes);
    },
    { prefix: "/api" },
  );

  const hasWeb = existsSync(path.join(webRoot, "index.html"));
  if (hasWeb) {
    await app.register(fastifyStatic, {
      root: webRoot,
      wildcard: false,
      index: false,
      setHeaders(res, file) {
        if (file.endsWith("widget.js")) {
          res.setHeader("cross-origin-resource-policy", "cross-origin");
          res.setHeader("access-control-allow-origin", "*");
          res.setHeader("cache-control", "public, max-age=300");
        } else if (file.includes(`${path.sep}assets${path.sep}`)) {
          res.setHeader("cache-control", "public, max-age=31536000, immutable");
        }
      },
    });
  }

  // Any other GET outside /api is a web-app route: the app itself decides (unknown paths go to /).
  app.setNotFoundHandler((request, reply) => {
    const isPage = (request.method === "GET" || request.method === "HEAD") && !request.url.startsWith("/api");
    if (hasWeb && isPage && !path.extname(request.url.split("?")[0] ?? "")) {
      return reply.header("cache-control", "no-cache").sendFile("index.html");
    }
    return reply.code(404).send({ message: MESSAGES.notFound });
  });

  // Housekeeping: expired rows go; never the audit log.
  const sweep = setInterval(() => {
    const now = clock.now();
    Promise.all([
      database.db.delete(rateLimits).where(lt(rateLimits.expiresAt, now)),
      database.db.delete(sessions).where(lt(sessions.expiresAt, now)),
      database.db.delete(verificationTokens).where(lt(verificationTokens.expiresAt, now)),
      database.db.delete(identityCodes).where(lt(identityCodes.expiresAt, new Date(now.getTime() - 86_400_000))),
    ]).catch((err) => app.log.warn({ err }, "housekeeping failed"));
  }, 10 * 60_000);
  sweep.unref();
  scheduleSiteRecheck(app as unknown as App);
  app.addHook("onClose", async () => {
    clearInterval(sweep);
    app.mailer.close();
  });

  return app as unknown as App;
}
