import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { z } from "zod";

/** How long the readiness check waits for the database. */
export const READY_PING_TIMEOUT_MS = 1000;

declare module "fastify" {
  interface FastifyInstance {
    /** Readiness turns 503 from now on (the first step of a graceful stop). */
    markStopping(): void;
  }
}

const healthAnswer = z.object({ status: z.literal("ok") });
const readyAnswer = z.object({ status: z.enum(["ready", "unavailable"]) });

/** Resolves true when the database answers `select 1` within the time limit. */
async function databaseAnswers(app: FastifyInstance, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const ping = app.deps.db.execute(sql`select 1`).then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([ping, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * GET /healthz: the process serves. GET /readyz: the database answers within 1 s and the server is not
 * stopping; a load balancer sends traffic only while it says ready. Neither is logged at info level.
 */
export default fp(
  async (app) => {
    let stopping = false;
    app.decorate("markStopping", () => {
      stopping = true;
    });

    app.get(
      "/healthz",
      { logLevel: "warn", schema: { hide: true, response: { 200: healthAnswer } } },
      async (_request, reply) => reply.header("cache-control", "no-store").send({ status: "ok" as const }),
    );

    app.get(
      "/readyz",
      { logLevel: "warn", schema: { hide: true, response: { 200: readyAnswer, 503: readyAnswer } } },
      async (_request, reply) => {
        const ready = !stopping && (await databaseAnswers(app, READY_PING_TIMEOUT_MS));
        return reply
          .code(ready ? 200 : 503)
          .header("cache-control", "no-store")
          .send({ status: ready ? ("ready" as const) : ("unavailable" as const) });
      },
    );
  },
  { name: "health", fastify: "5.x" },
);
