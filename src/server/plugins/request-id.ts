import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { LogController } from "fastify";
import fp from "fastify-plugin";

export const REQUEST_ID_HEADER = "x-request-id";
/** A caller's request id is kept when it is a short token of safe characters; anything else is replaced. */
const VALID_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** The request's own X-Request-Id when it is valid, else a new one. */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers[REQUEST_ID_HEADER];
  return typeof given === "string" && VALID_REQUEST_ID.test(given) ? given : randomUUID();
}

/** Fastify server options: the request id comes from requestIdOf and every log line carries it as `requestId`. */
export const requestIdServerOptions = {
  requestIdHeader: false as const,
  logController: new LogController({ requestIdLogLabel: "requestId" }),
  genReqId: requestIdOf,
};

/** Every answer carries the request's id in X-Request-Id, so a caller can quote it and an operator find its logs. */
export default fp(
  async (app) => {
    app.addHook("onRequest", async (request, reply) => {
      reply.header(REQUEST_ID_HEADER, request.id);
    });
  },
  { name: "request-id", fastify: "5.x" },
);
