import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import cookie from "@fastify/cookie";
import fastifyStatic from "@fastify/static";
import { MAX_BODY_BYTES } from "@shared/constants";
import { ERROR_CODES } from "@shared/error-codes";
import { MESSAGES } from "@shared/messages";
import Fastify, { type FastifyServerOptions } from "fastify";
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import adminRoutes from "./features/admin/routes";
import auditRoutes from "./features/audit/routes";
import authRoutes from "./features/auth/routes";
import codesRoutes from "./features/codes/routes";
import employerRoutes from "./features/employer/routes";
import onboardingRoutes from "./features/onboarding/routes";
import deps, { type DepsOptions } from "./plugins/deps";
import errorHandler from "./plugins/error-handler";
import housekeeping from "./plugins/housekeeping";
import securityHeaders from "./plugins/security-headers";
import session from "./plugins/session";
import type { App } from "./types";

export const webRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../dist/web");

export type AppOptions = DepsOptions & { logger?: FastifyServerOptions["logger"] };

/** Builds the whole server (API, web app, widget) without listening. The caller owns the database. */
export async function buildApp({ logger, ...opts }: AppOptions): Promise<App> {
  const { config } = opts;
  const app = Fastify({
    logger: logger ?? { level: config.logLevel, redact: ["req.headers.cookie", "req.headers['x-xsrf-token']"] },
    bodyLimit: MAX_BODY_BYTES,
    trustProxy: config.trustProxy,
    forceCloseConnections: "idle",
    return503OnClosing: true,
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  await app.register(deps, opts);
  await app.register(errorHandler);
  await app.register(cookie);
  await app.register(session);
  await app.register(securityHeaders);
  await app.register(housekeeping);

  await app.register(
    async (api) => {
      await api.register(authRoutes);
      await api.register(onboardingRoutes);
      await api.register(codesRoutes);
      await api.register(adminRoutes);
      await api.register(employerRoutes);
      await api.register(auditRoutes);
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
    return reply.code(404).send({ message: MESSAGES.notFound, code: ERROR_CODES.notFound });
  });

  return app;
}
