import {
  type ApiKeyCaller,
  authenticate,
  authenticateAnd,
  authenticateLater,
  type KeyedStatement,
  keyedStatement,
  type PendingKey,
} from "@server/features/api-keys";
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
import * as repo from "./repository";
import * as v1 from "./v1-service";

/** The OpenAPI security of every /api/v1 call: the bearer scheme (the key), never the session cookie. */
const security = [{ apiKey: [] }];
const refusals = { 400: errorAnswer, 401: errorAnswer, 403: errorAnswer, 404: errorAnswer, 429: errorAnswer };

/**
 * The key check of the /api/v1 routes of the calls feature (this file's and status-routes.ts's), as
 * features/v1 does: Bearer keys only (no cookie, no CSRF, no CORS), checked in onRequest, before the body is
 * read. `keyed(scope, schema)` is a route's options: the check, the refusals' config, the bearer security and
 * the refusal answers beside the schema's own; `keyOf(request)` is the key that passed.
 *
 * A hot route's key check and its first read in one round trip (api-keys `authenticateAnd`): `keyedWith(scope,
 * schema)` (or `later(scope)` beside a schema of the route's own) leaves a key seen before for the handler's
 * `keyAnd(request, statement, values)`, which checks it in the statement that evaluates the route's read (the
 * key's refusals then come after the body's and the path's 400).
 */
export function v1KeyCheck(app: App) {
  const keys = new WeakMap<FastifyRequest, ApiKeyCaller>();
  const pending = new WeakMap<FastifyRequest, PendingKey>();
  // the /api/v1 routes' config, an object of its own for each route
  const config = () => ({
    bearer: true,
    anonymous: anonymousLimit({ limit: API_KEY_LIMITS.refusalsPerMinutePerIp, windowMs: 60_000 }),
  });
  const withScope = (scope: ApiKeyScope) => ({
    config: config(),
    onRequest: async (request: FastifyRequest) => {
      keys.set(
        request,
        await authenticate(app.deps, request.actor, { authorization: request.headers.authorization, scope }),
      );
    },
  });
  const later = (scope: ApiKeyScope) => ({
    config: config(),
    onRequest: async (request: FastifyRequest) => {
      const authorization = request.headers.authorization;
      pending.set(request, await authenticateLater(app.deps, request.actor, { authorization, scope }));
    },
  });
  const withSchema = <S extends { response: object }>(schema: S) => ({
    ...schema,
    security,
    response: { ...refusals, ...schema.response },
  });
  return {
    withScope,
    keyed: <S extends { response: object }>(scope: ApiKeyScope, schema: S) => ({
      ...withScope(scope),
      schema: withSchema(schema),
    }),
    later,
    keyedWith: <S extends { response: object }>(scope: ApiKeyScope, schema: S) => ({
      ...later(scope),
      schema: withSchema(schema),
    }),
    keyAnd: <T>(
      request: FastifyRequest,
      statement: KeyedStatement,
      values: Parameters<typeof authenticateAnd<T>>[4],
    ): Promise<{ key: ApiKeyCaller; value: T }> => {
      const key = pending.get(request);
      if (!key) throw new Error("an /api/v1 route ran without its key check");
      return authenticateAnd<T>(app.deps, request.actor, key, statement, values);
    },
    keyOf: (request: FastifyRequest): ApiKeyCaller => {
      const key = keys.get(request);
      if (!key) throw new Error("an /api/v1 route ran without its key check");
      return key;
    },
  };
}

/** The hot routes' first reads, each in its key's statement: the employee of a start, the call of an end or a check. */
const EMPLOYEE_OF_KEY = keyedStatement("v1_calls_employee", repo.employeeJsonSql);
const CALL_OF_KEY = keyedStatement("v1_calls_call", repo.callJsonSql);

/**
 * The dialler's and the organisation's backend's calls under /api/v1. Calls of a deactivated organisation are
 * refused by the key check (401).
 */
export default async function v1CallsRoutes(app: App) {
  const { keyed, keyedWith, keyAnd, keyOf } = v1KeyCheck(app);
  const callOf = (request: FastifyRequest, id: string) =>
    keyAnd(request, CALL_OF_KEY, (key) => ({ call_id: id, organisation_id: key.organisationId }));

  app.post(
    "/v1/calls",
    keyedWith("calls:write", {
      operationId: "v1StartCall",
      summary: "Start (or renew) an employee's call with a customer (scope calls:write)",
      description:
        "The dialler placing or taking the call. The same body again while the call is active renews it (200, same answer); otherwise the employee's active call ends and a new one starts (201). At most 30 starts a rolling hour per employee and 600 a minute per organisation (429 with `Retry-After`).",
      body: v1CallBody,
      response: { 200: v1CallAnswer, 201: v1CallAnswer },
    }),
    async (request, reply) => {
      const { key, value } = await keyAnd(request, EMPLOYEE_OF_KEY, () =>
        repo.employeeValues(request.body.employeeEmail, app.deps.clock.now()),
      );
      const employee = repo.employeeFromJson(value);
      const { answer, renewed } = await v1.startCall(app.deps, request.actor, key, employee, request.body);
      return reply.code(renewed ? 200 : 201).send(answer);
    },
  );

  app.post(
    "/v1/calls/:id/end",
    keyedWith("calls:write", {
      operationId: "v1EndCall",
      summary: "End a call (scope calls:write)",
      params: callIdParams,
      response: { 200: okAnswer },
    }),
    async (request) => {
      const { key, value } = await callOf(request, request.params.id);
      return v1.endCall(app.deps, request.actor, key, repo.callFromJson(value));
    },
  );

  app.post(
    "/v1/calls/:id/customer-check",
    keyedWith("calls:write", {
      operationId: "v1RequestCustomerCheck",
      summary: "Ask the call's customer to confirm in their app (scope calls:write)",
      description:
        "2 minutes to answer. 409 while the customer has a pending check with the organisation or the call has a denied check; at most 3 checks per customer in 10 minutes and 3 a minute per employee (429).",
      params: callIdParams,
      response: { 201: checkCreatedAnswer, 409: errorAnswer },
    }),
    async (request, reply) => {
      const { key, value } = await callOf(request, request.params.id);
      const answer = await v1.requestCheck(app.deps, request.actor, key, repo.callFromJson(value));
      return reply.code(201).send(answer);
    },
  );

  app.get(
    "/v1/customer-checks/:id",
    keyed("calls:read", {
      operationId: "v1GetCustomerCheck",
      summary: "A customer check's status (scope calls:read)",
      params: callIdParams,
      response: { 200: checkAnswer },
    }),
    async (request) => v1.checkStatus(app.deps, keyOf(request), request.params.id),
  );

  app.post(
    "/v1/customer-checks/:id",
    keyed("checks:answer", {
      operationId: "v1AnswerCustomerCheck",
      summary: "Give the customer's answer to a check, from the organisation's own app (scope checks:answer)",
      description: "Answered once: 409 when the check is no longer pending (answered, expired, or its call ended).",
      params: callIdParams,
      body: checkAnswerBody,
      response: { 200: checkAnsweredAnswer, 409: errorAnswer },
    }),
    async (request) =>
      v1.answerCheckByKey(app.deps, request.actor, keyOf(request), request.params.id, request.body.answer),
  );

  app.post(
    "/v1/customers/export",
    keyed("calls:read", {
      operationId: "v1ExportCustomer",
      summary: "Every call, check and answer kept for a customer (scope calls:read)",
      body: customerBody,
      response: { 200: customerExportAnswer },
    }),
    async (request) => v1.exportCustomer(app.deps, keyOf(request), request.body.customerRef),
  );

  app.post(
    "/v1/customers/erase",
    keyed("calls:write", {
      operationId: "v1EraseCustomer",
      summary:
        "Erase a customer's calls, checks, status tokens and the webhook deliveries naming them (scope calls:write)",
      body: customerBody,
      response: { 200: customerErasedAnswer },
    }),
    async (request) => v1.eraseCustomer(app.deps, request.actor, keyOf(request), request.body.customerRef),
  );
}
