import { type ApiKeyCaller, authenticate } from "@server/features/api-keys";
import { codesErrors, openStatusStream } from "@server/features/codes";
import { anonymousLimit } from "@server/lib/anonymous-access";
import { sseHeaders } from "@server/lib/event-stream";
import type { App } from "@server/types";
import { activityAnswer } from "@shared/activity";
import { codeEventsAnswer, errorAnswer } from "@shared/answers";
import {
  API_KEY_LIMITS,
  type ApiKeyScope,
  auditFeedAnswer,
  feedQuery,
  reportsFeedAnswer,
  v1CodeAnswer,
  v1CodeBody,
  v1CodeStatus,
} from "@shared/api-keys";
import { lookupIdParams } from "@shared/paging";
import type { FastifyRequest } from "fastify";
import * as v1 from "./service";

declare module "fastify" {
  interface FastifyRequest {
    /** the API key of an /api/v1 call, once its check passed */
    apiKey: ApiKeyCaller | null;
  }
}

/** The OpenAPI security of every /api/v1 call: the bearer scheme (the key), never the session cookie. */
const security = [{ apiKey: [] }];
const refusals = { 401: errorAnswer, 403: errorAnswer, 429: errorAnswer };

const keyOf = (request: FastifyRequest): ApiKeyCaller => {
  if (!request.apiKey) throw new Error("an /api/v1 route ran without its key check");
  return request.apiKey;
};

/**
 * The integration API: `Authorization: Bearer cpk_…` only. `config.bearer` makes the session plugin skip
 * the route (no cookie read or set, no CSRF token, no Origin check), decided by the matched route, never
 * the raw URL; no CORS headers are offered, so a browser page of another site cannot read an answer. The
 * key is checked in onRequest, before the body is read or anything is written but the per-address
 * refusal counter.
 */
export default async function v1Routes(app: App) {
  app.decorateRequest("apiKey", null);
  const withScope = (scope: ApiKeyScope) => ({
    // Refused calls (no key, a wrong one) are counted per client address before anything is written.
    config: {
      bearer: true,
      anonymous: anonymousLimit({ limit: API_KEY_LIMITS.refusalsPerMinutePerIp, windowMs: 60_000 }),
    },
    onRequest: async (request: FastifyRequest) => {
      request.apiKey = await authenticate(app.deps, request.actor, {
        authorization: request.headers.authorization,
        scope,
      });
    },
  });

  app.post(
    "/v1/codes",
    {
      ...withScope("codes:write"),
      schema: {
        operationId: "v1CreateCode",
        summary: "Issue an identity code for an employee (scope codes:write)",
        description:
          "Issued through the employee's own generation: at most 3 a rolling minute per employee (429 with `Retry-After`). 404 for anyone who is not an active employee of the key's organisation.",
        security,
        body: v1CodeBody,
        response: { 201: v1CodeAnswer, 400: errorAnswer, 404: errorAnswer, ...refusals },
      },
    },
    async (request, reply) => {
      const answer = await v1.issueCode(app.deps, request.actor, keyOf(request), request.body);
      app.metrics.codeGenerated();
      return reply.code(201).send(answer);
    },
  );

  app.get(
    "/v1/codes/:id",
    {
      ...withScope("codes:read"),
      schema: {
        operationId: "v1GetCode",
        summary: "A code's status (scope codes:read)",
        security,
        params: lookupIdParams,
        response: { 200: v1CodeStatus, 400: errorAnswer, 404: errorAnswer, ...refusals },
      },
    },
    async (request) => {
      const { ownerId, ...status } = await v1.codeStatus(app.deps, keyOf(request), request.params);
      return status;
    },
  );

  app.get(
    "/v1/codes/:id/events",
    {
      ...withScope("codes:read"),
      schema: {
        operationId: "v1StreamCodeEvents",
        summary: "A code's live status as server-sent events (scope codes:read)",
        description:
          "`text/event-stream`: the state now (`live`, or `verified`/`expired` and the end), then `verified` the moment a customer verifies the code, or `expired` at expiry. Each event's data is the JSON of GET /api/v1/codes/{id}.",
        security,
        params: lookupIdParams,
        response: {
          200: codeEventsAnswer,
          400: errorAnswer,
          404: errorAnswer,
          ...refusals,
        },
      },
    },
    async (request, reply) => {
      const key = keyOf(request);
      const { ownerId, ...first } = await v1.codeStatus(app.deps, key, request.params);
      const look = () =>
        v1
          .codeStatus(app.deps, key, request.params)
          .then(({ ownerId: _owner, ...now }) => now)
          .catch(() => null);
      const stream = openStatusStream(app.codeEvents, {
        // counted per employee, as the employee's own browser tabs are
        userId: ownerId,
        first,
        msUntilExpiry: Date.parse(first.expiresAt) - app.deps.clock.now().getTime(),
        look,
      });
      if (!stream) throw codesErrors.tooManyStreams();
      reply.raw.on("close", stream.close);
      sseHeaders(reply);
      // A stream is piped as it is (Fastify serialises no stream); the string schema only documents it.
      return reply.send(stream.body as unknown as string);
    },
  );

  app.get(
    "/v1/audit",
    {
      ...withScope("audit:read"),
      schema: {
        operationId: "v1ListAuditEvents",
        summary: "The organisation's audit events after a cursor (scope audit:read)",
        description:
          "Oldest first. Follow `next`: every event is returned exactly once, in feed-position order, even while other requests write events (a position is given only once the event's transaction has ended).",
        security,
        querystring: feedQuery,
        response: { 200: auditFeedAnswer, 400: errorAnswer, ...refusals },
      },
    },
    async (request) => v1.audit(app.deps, keyOf(request), request.query),
  );

  app.get(
    "/v1/reports",
    {
      ...withScope("reports:read"),
      schema: {
        operationId: "v1ListReports",
        summary: "The organisation's reported calls after a cursor (scope reports:read)",
        description: "The same cursor as /api/v1/audit.",
        security,
        querystring: feedQuery,
        response: { 200: reportsFeedAnswer, 400: errorAnswer, ...refusals },
      },
    },
    async (request) => v1.reports(app.deps, keyOf(request), request.query),
  );

  app.get(
    "/v1/activity",
    {
      ...withScope("activity:read"),
      schema: {
        operationId: "v1GetActivity",
        summary: "The organisation's last 30 days (scope activity:read)",
        security,
        response: { 200: activityAnswer, ...refusals },
      },
    },
    async (request) => v1.activity(app.deps, keyOf(request)),
  );
}
