import { signedIn } from "@server/context";
import { activeOwnCallId } from "@server/features/calls";
import { ANONYMOUS_READ_ONLY, anonymousLimit } from "@server/lib/anonymous-access";
import { HttpError } from "@server/lib/errors";
import { sseHeaders } from "@server/lib/event-stream";
import { requireUser } from "@server/plugins/guards";
import { widgetCall } from "@server/plugins/widget-cors";
import type { App } from "@server/types";
import { codeEventsAnswer, errorAnswer } from "@shared/answers";
import {
  clientInfoAnswer,
  codeStatusAnswer,
  generatedWordsAnswer,
  generateWordsBody,
  verifyAnswer,
  verifyBody,
} from "@shared/codes-schemas";
import { IDENTITY_CODE } from "@shared/constants";
import { requestLanguage } from "@shared/languages";
import { idParams } from "@shared/paging";
import { codesErrors } from "./errors";
import { openStatusStream } from "./live";
import * as codes from "./service";

export default async function codesRoutes(app: App) {
  app.get(
    "/client-info",
    {
      preHandler: requireUser,
      schema: {
        operationId: "getClientInfo",
        summary: "The signed-in employee's caller details",
        response: { 200: clientInfoAnswer },
      },
    },
    async (request) => codes.clientInfo(app.deps, request.actor),
  );

  app.post(
    "/generate-words",
    {
      preHandler: requireUser,
      schema: {
        operationId: "generateCode",
        summary: "Generate an identity code (three words)",
        body: generateWordsBody,
        response: { 429: errorAnswer, 200: generatedWordsAnswer, 403: errorAnswer, 404: errorAnswer, 409: errorAnswer },
      },
    },
    async (request) => {
      // with callId: the caller's own active call (404 for any other, 409 once it ended)
      const callId = request.body?.callId ? await activeOwnCallId(app.deps, request.actor, request.body.callId) : null;
      const answer = await codes.generateWords(app.deps, request.actor, { language: request.body?.language, callId });
      app.metrics.codeGenerated();
      return answer;
    },
  );

  app.get(
    "/codes/:id",
    {
      preHandler: requireUser,
      schema: {
        operationId: "getCode",
        summary: "A code's status",
        params: idParams,
        response: { 200: codeStatusAnswer },
      },
    },
    async (request) => codes.codeStatus(app.deps, request.actor, request.params),
  );

  // The code's status as server-sent events: its state now, then `verified` or `expired` when that
  // happens, then the end. A browser that loses the stream reconnects and gets the state again.
  app.get(
    "/codes/:id/events",
    {
      preHandler: requireUser,
      schema: {
        operationId: "streamCodeEvents",
        summary: "A code's live status (server-sent events)",
        params: idParams,
        response: { 200: codeEventsAnswer, 404: errorAnswer, 429: errorAnswer },
      },
    },
    async (request, reply) => {
      const first = await codes.codeStatus(app.deps, request.actor, request.params);
      const stream = openStatusStream(app.codeEvents, {
        userId: signedIn(request.actor).id,
        first,
        msUntilExpiry: Date.parse(first.expiresAt) - app.deps.clock.now().getTime(),
        look: () => codes.codeStatus(app.deps, request.actor, request.params).catch(() => null),
      });
      if (!stream) throw codesErrors.tooManyStreams();
      reply.raw.on("close", stream.close);
      sseHeaders(reply);
      return reply.send(stream.body as unknown as string);
    },
  );

  app.options(
    "/verify",
    { onRequest: widgetCall, config: { widget: true, anonymous: ANONYMOUS_READ_ONLY } },
    async (_request, reply) => reply.code(204).send(),
  );

  app.post(
    "/verify",
    {
      onRequest: widgetCall,
      config: {
        widget: true,
        anonymous: anonymousLimit({ limit: IDENTITY_CODE.lookupsPerWindow, windowMs: IDENTITY_CODE.lookupWindowMs }),
      },
      schema: {
        operationId: "verifyCode",
        summary: "Check the words a caller gave (the widget's call)",
        body: verifyBody,
        response: { 200: verifyAnswer },
      },
    },
    async (request, reply) => {
      // The widget's language: its `language` field, else Accept-Language, else English (the answer's texts).
      const language = requestLanguage(request.body.language, request.headers["accept-language"]);
      reply.header("content-language", language);
      const input = { words: request.body.words, origin: request.headers.origin, language };
      const answer = await codes.verifyWords(app.deps, request.actor, input).catch((err) => {
        if (err instanceof HttpError && err.statusCode === 429) app.metrics.codeLookup("rate_limited");
        throw err;
      });
      app.metrics.codeLookup(answer.verified ? "verified" : "failed");
      return answer;
    },
  );
}
