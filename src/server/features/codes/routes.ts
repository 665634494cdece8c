import { PassThrough } from "node:stream";
import { signedIn } from "@server/context";
import { HttpError } from "@server/lib/errors";
import { requireUser } from "@server/plugins/guards";
import { widgetCall } from "@server/plugins/widget-cors";
import type { App } from "@server/types";
import {
  clientInfoAnswer,
  codeStatusAnswer,
  generatedWordsAnswer,
  verifyAnswer,
  verifyBody,
} from "@shared/codes-schemas";
import { idParams } from "@shared/paging";
import { codesErrors } from "./errors";
import { HEARTBEAT_MS, sseEvent, sseHeaders } from "./live";
import * as codes from "./service";

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

  app.get(
    "/codes/:id",
    { preHandler: requireUser, schema: { params: idParams, response: { 200: codeStatusAnswer } } },
    async (request) => codes.codeStatus(app.deps, request.actor, request.params),
  );

  // The code's status as server-sent events: its state now, then `verified` or `expired` when that
  // happens, then the end. A browser that loses the stream reconnects and gets the state again.
  app.get("/codes/:id/events", { preHandler: requireUser, schema: { params: idParams } }, async (request, reply) => {
    const user = signedIn(request.actor);
    const first = await codes.codeStatus(app.deps, request.actor, request.params);
    const stream = new PassThrough();
    sseHeaders(reply);
    stream.write("retry: 2000\n\n");
    if (first.status !== "live") {
      stream.end(sseEvent(first.status, first));
      return reply.send(stream);
    }
    let done = false;
    const release = app.codeEvents.open(user.id, () => finish());
    if (!release) throw codesErrors.tooManyStreams();
    const look = async () => {
      if (done) return;
      const now = await codes.codeStatus(app.deps, request.actor, request.params).catch(() => null);
      if (done) return;
      if (!now) return finish();
      if (now.status !== "live") {
        stream.write(sseEvent(now.status, now));
        finish();
      }
    };
    const unwatch = app.codeEvents.watch(first.id, () => void look());
    const untilExpiry = Date.parse(first.expiresAt) - app.deps.clock.now().getTime();
    const expiry = setTimeout(() => void look(), Math.max(0, untilExpiry) + 50);
    const heartbeat = setInterval(() => stream.write(": keep-alive\n\n"), HEARTBEAT_MS);
    function finish() {
      if (done) return;
      done = true;
      unwatch();
      clearTimeout(expiry);
      clearInterval(heartbeat);
      release?.();
      stream.end();
    }
    reply.raw.on("close", finish);
    stream.write(sseEvent("live", first));
    // A verification between the first look and the watch would otherwise be missed.
    void look();
    return reply.send(stream);
  });

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
