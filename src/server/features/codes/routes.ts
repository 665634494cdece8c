import { HttpError } from "@server/lib/errors";
import { requireUser } from "@server/plugins/guards";
import type { App } from "@server/types";
import { clientInfoAnswer, generatedWordsAnswer, verifyAnswer, verifyBody } from "@shared/codes-schemas";
import type { FastifyReply, FastifyRequest } from "fastify";
import * as codes from "./service";

/** CORS for the widget's call: any origin, never credentials (cookies are not wanted and not read). */
const CORS_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "POST",
  "access-control-allow-headers": "content-type",
  "access-control-max-age": "7200",
};

/** Every answer of /api/verify, errors included, is readable cross-origin. */
async function widgetCall(_request: FastifyRequest, reply: FastifyReply) {
  reply.headers(CORS_HEADERS);
}

export default async function codesRoutes(app: App) {
  app.get(
    "/client-info",
    { preHandler: requireUser, schema: { response: { 200: clientInfoAnswer } } },
    async (request) => codes.clientInfo(app.deps, request.actor),
  );

  app.post(
    "/generate-words",
    { preHandler: requireUser, schema: { response: { 200: generatedWordsAnswer } } },
    async (request) => {
      const answer = await codes.generateWords(app.deps, request.actor);
      app.metrics.codeGenerated();
      return answer;
    },
  );

  app.options("/verify", { onRequest: widgetCall, config: { widget: true } }, async (_request, reply) =>
    reply.code(204).send(),
  );

  app.post(
    "/verify",
    { onRequest: widgetCall, config: { widget: true }, schema: { body: verifyBody, response: { 200: verifyAnswer } } },
    async (request) => {
      const input = { words: request.body.words, origin: request.headers.origin };
      const answer = await codes.verifyWords(app.deps, request.actor, input).catch((err) => {
        if (err instanceof HttpError && err.statusCode === 429) app.metrics.codeLookup("rate_limited");
        throw err;
      });
      app.metrics.codeLookup(answer.verified ? "verified" : "failed");
      return answer;
    },
  );
}
