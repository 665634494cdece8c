import { type ApiKeyCaller, authenticate } from "@server/features/api-keys";
import { anonymousLimit } from "@server/lib/anonymous-access";
import type { App } from "@server/types";
import { errorAnswer } from "@shared/answers";
import { API_KEY_LIMITS, type ApiKeyScope } from "@shared/api-keys";
import {
  callIdParams,
  checkAnswer,
  checkAnswerBody,
  checkAnsweredAnswer,
  checkCreatedAnswer,
  customerBody,
  customerErasedAnswer,
  customerExportAnswer,
  okAnswer,
  v1CallAnswer,
  v1CallBody,
} from "@shared/calls";
import type { FastifyRequest } from "fastify";
import * as v1 from "./v1-service";

/** The OpenAPI security of every /api/v1 call: the bearer scheme (the key), never the session cookie. */
const security = [{ apiKey: [] }];
const refusals = { 400: errorAnswer, 401: errorAnswer, 403: errorAnswer, 404: errorAnswer, 429: errorAnswer };

/** The key of a request, once its check passed (set by this scope's onRequest). */
const keys = new WeakMap<FastifyRequest, ApiKeyCaller>();
const keyOf = (request: FastifyRequest): ApiKeyCaller => {
  const key = keys.get(request);
  if (!key) throw new Error("an /api/v1 route ran without its key check");
  return key;
};

/**
 * The dialler's and the organisation's backend's calls under /api/v1 (Bearer keys only, as features/v1
 * does: no cookie, no CSRF, no CORS; the key checked in onRequest, before the body is read). Calls of a
 * deactivated organisation are refused by the key check (401).
 */
export default async function v1CallsRoutes(app: App) {
  const withScope = (scope: ApiKeyScope) => ({
    config: {
      bearer: true,
      anonymous: anonymousLimit({ limit: API_KEY_LIMITS.refusalsPerMinutePerIp, windowMs: 60_000 }),
    },
    onRequest: async (request: FastifyRequest) => {
      keys.set(
        request,
        await authenticate(app.deps, request.actor, { authorization: request.headers.authorization, scope }),
      );
    },
  });

  app.post(
    "/v1/calls",
    {
      ...withScope("calls:write"),
      schema: {
        operationId: "v1StartCall",
        summary: "Start (or renew) an employee's call with a customer (scope calls:write)",
        description:
          "The dialler placing or taking the call. The same body again while the call is active renews it (200, same answer); otherwise the employee's active call ends and a new one starts (201). At most 30 starts a rolling hour per employee and 600 a minute per organisation (429 with `Retry-After`).",
        security,
        body: v1CallBody,
        response: { 200: v1CallAnswer, 201: v1CallAnswer, ...refusals },
      },
    },
    async (request, reply) => {
      const { answer, renewed } = await v1.startCall(app.deps, request.actor, keyOf(request), request.body);
      return reply.code(renewed ? 200 : 201).send(answer);
    },
  );

  app.post(
    "/v1/calls/:id/end",
    {
      ...withScope("calls:write"),
      schema: {
        operationId: "v1EndCall",
        summary: "End a call (scope calls:write)",
        security,
        params: callIdParams,
        response: { 200: okAnswer, ...refusals },
      },
    },
    async (request) => v1.endCall(app.deps, request.actor, keyOf(request), request.params.id),
  );

  app.post(
    "/v1/calls/:id/customer-check",
    {
      ...withScope("calls:write"),
      schema: {
        operationId: "v1RequestCustomerCheck",
        summary: "Ask the call's customer to confirm in their app (scope calls:write)",
        description:
          "2 minutes to answer. 409 while the customer has a pending check with the organisation or the call has a denied check; at most 3 checks per customer in 10 minutes and 3 a minute per employee (429).",
        security,
        params: callIdParams,
        response: { 201: checkCreatedAnswer, 409: errorAnswer, ...refusals },
      },
    },
    async (request, reply) => {
      const answer = await v1.requestCheck(app.deps, request.actor, keyOf(request), request.params.id);
      return reply.code(201).send(answer);
    },
  );

  app.get(
    "/v1/customer-checks/:id",
    {
      ...withScope("calls:read"),
      schema: {
        operationId: "v1GetCustomerCheck",
        summary: "A customer check's status (scope calls:read)",
        security,
        params: callIdParams,
        response: { 200: checkAnswer, ...refusals },
      },
    },
    async (request) => v1.checkStatus(app.deps, keyOf(request), request.params.id),
  );

  app.post(
    "/v1/customer-checks/:id",
    {
      ...withScope("checks:answer"),
      schema: {
        operationId: "v1AnswerCustomerCheck",
        summary: "Give the customer's answer to a check, from the organisation's own app (scope checks:answer)",
        description: "Answered once: 409 when the check is no longer pending (answered, expired, or its call ended).",
        security,
        params: callIdParams,
        body: checkAnswerBody,
        response: { 200: checkAnsweredAnswer, 409: errorAnswer, ...refusals },
      },
    },
    async (request) =>
      v1.answerCheckByKey(app.deps, request.actor, keyOf(request), request.params.id, request.body.answer),
  );

  app.post(
    "/v1/customers/export",
    {
      ...withScope("calls:read"),
      schema: {
        operationId: "v1ExportCustomer",
        summary: "Every call, check and answer kept for a customer (scope calls:read)",
        security,
        body: customerBody,
        response: { 200: customerExportAnswer, ...refusals },
      },
    },
    async (request) => v1.exportCustomer(app.deps, keyOf(request), request.body.customerRef),
  );

  app.post(
    "/v1/customers/erase",
    {
      ...withScope("calls:write"),
      schema: {
        operationId: "v1EraseCustomer",
        summary:
          "Erase a customer's calls, checks, status tokens and the webhook deliveries naming them (scope calls:write)",
        security,
        body: customerBody,
        response: { 200: customerErasedAnswer, ...refusals },
      },
    },
    async (request) => v1.eraseCustomer(app.deps, request.actor, keyOf(request), request.body.customerRef),
  );
}
