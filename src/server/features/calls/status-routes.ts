import { keyedStatement } from "@server/features/api-keys";
import { organisationActiveSql } from "@server/features/organisations";
import { verifiedSitesSql } from "@server/features/sites";
import { ANONYMOUS_READ_ONLY } from "@server/lib/anonymous-access";
import { sseHeaders } from "@server/lib/event-stream";
import { siteScope } from "@server/lib/origin";
import type { App } from "@server/types";
import { errorAnswer, messageAnswer, textAnswer } from "@shared/answers";
import {
  callStatusAnswer,
  componentAnswerAnswer,
  componentAnswerBody,
  componentCheckParams,
  componentReportBody,
  customerRefBody,
  revokedTokensAnswer,
  statusTokenAnswer,
  statusTokenBody,
} from "@shared/call-status-protocol";
import { requestLanguage } from "@shared/languages";
import { sql } from "drizzle-orm";
import type { FastifyReply, FastifyRequest } from "fastify";
import { customerHash } from "./customer";
import { type CustomerStatusJson, customerStatusCalled } from "./repository";
import { callStatusOf, toCallStatus } from "./service";
import * as live from "./status-live";
import { openComponentStream, StatusStreams } from "./status-stream";
import {
  findToken,
  mintToken,
  revokeTokens,
  type StatusToken,
  statusErrors,
  toCallStatusAnswer,
  toComponentState,
} from "./status-tokens";
import { v1KeyCheck } from "./v1-routes";

declare module "fastify" {}

const security = [{ apiKey: [] }];
const refusals = { 401: errorAnswer, 403: errorAnswer, 429: errorAnswer };
const componentSecurity = [{ statusToken: [] }];

/** `POST /api/v1/customers/call-status`'s one statement: the key, its rate-limit hit and the customer's status. */
const CALL_STATUS = keyedStatement("call_status", customerStatusCalled.sql, customerStatusCalled.calls);

/** The CORS headers of an answer to the token's own origin: that origin only, never credentials. */
const corsTo = (origin: string) => ({
  "access-control-allow-origin": origin,
  "access-control-expose-headers": "retry-after",
  vary: "Origin",
});

/**
 * The customer's side: status tokens (/api/v1/customers/status-token(s), /api/v1/customers/call-status) and
 * the call-status component's routes (/api/call-status…). The component's protocol: docs/calls.md.
 */
export default async function statusRoutes(app: App) {
  const { withScope, later, keyAnd, keyOf } = v1KeyCheck(app);

  app.post(
    "/v1/customers/status-token",
    {
      ...withScope("calls:read"),
      schema: {
        operationId: "v1CreateStatusToken",
        summary: "A status token for the call-status component (scope calls:read; checks:answer with answer)",
        description:
          "For the customer's signed-in page on `origin` (exactly its scheme, host and port; one of the organisation's verified https sites or under one): 15 minutes; with `answer: true` it may also answer the customer's pending check. At most 20 live tokens per customer: minting another revokes the oldest. Take `customerRef` from your own session, never from the request.",
        security,
        body: statusTokenBody,
        response: { 201: statusTokenAnswer, 400: errorAnswer, ...refusals },
      },
    },
    async (request, reply) => reply.code(201).send(await mintToken(app.deps, keyOf(request), request.body)),
  );

  app.delete(
    "/v1/customers/status-tokens",
    {
      ...withScope("calls:read"),
      schema: {
        operationId: "v1RevokeStatusTokens",
        summary: "Revoke every status token of a customer (scope calls:read)",
        description: "Every token of the customer stops working at once; open component streams end.",
        security,
        body: customerRefBody,
        response: { 200: revokedTokensAnswer, 400: errorAnswer, ...refusals },
      },
    },
    async (request) => {
      const key = keyOf(request);
      const revoked = await revokeTokens(app.deps, key, request.body.customerRef);
      // This process's streams at once (the others on the notification).
      await live.recheckOrganisation(app, key.organisationId);
      return { revoked };
    },
  );

  // The hot route (benchmarked against POST /api/verify): a key seen before is checked in the same statement
  // as its rate-limit hit and the status read, one round trip (api-keys `authenticateAnd`).
  app.post(
    "/v1/customers/call-status",
    {
      ...later("calls:read"),
      schema: {
        operationId: "v1CustomerCallStatus",
        summary: "Who is calling a customer now, and when we last called (scope calls:read)",
        description:
          "The customer's active **outbound** calls, newest first, and the start and employee of the newest outbound call kept (`null`s when none). An inbound call never appears.",
        security,
        body: customerRefBody,
        response: { 200: callStatusAnswer, 400: errorAnswer, ...refusals },
      },
    },
    async (request) => {
      const now = app.deps.clock.now();
      const { value } = await keyAnd<CustomerStatusJson>(request, CALL_STATUS, (key) => ({
        organisation_id: key.organisationId,
        customer_hash: customerHash(app.deps.config.appSecret, key.organisationId, request.body.customerRef),
        now: now.toISOString(),
      }));
      return toCallStatusAnswer(toCallStatus(value, now));
    },
  );

  // --- the component's routes ---

  const streams = new StatusStreams();
  live.watch(app, streams);

  /**
   * The token of a component request, bound to its origin: unknown or malformed 401 (no CORS: there is no
   * origin to answer), another Origin (or none, or `null`) 403; then CORS to the token's origin and 401 for
   * a token that expired, was revoked, or whose organisation or key is gone.
   */
  const tokens = new WeakMap<FastifyRequest, StatusToken>();
  const checkToken = async (request: FastifyRequest, reply: FastifyReply) => {
    const token = await findToken(app.deps.db, request.headers.authorization, app.deps.clock.now());
    if (!token) throw statusErrors.tokenInvalid();
    if (request.headers.origin !== token.origin) throw statusErrors.wrongOrigin();
    const cors = corsTo(token.origin);
    reply.headers(cors);
    if (!token.usable) throw statusErrors.tokenInvalid(cors);
    tokens.set(request, token);
  };
  const tokenOf = (request: FastifyRequest): StatusToken => {
    const token = tokens.get(request);
    if (!token) throw new Error("a call-status route ran without its token check");
    return token;
  };
  /** The token is checked in onRequest: before the body is read, a caller without one gets 401 and nothing else. */
  const component = { config: { statusToken: true }, onRequest: checkToken } as const;

  /** Preflights: to an origin on a verified https site of an active organisation (the request itself checks the token's). */
  const preflight = async (request: FastifyRequest, reply: FastifyReply) => {
    const origin = request.headers.origin;
    const hosts = origin ? siteScope(origin, app.deps.config.publicOrigin) : [];
    // A refused preflight is answered without CORS headers: the browser then sends nothing.
    if (!origin || hosts === "any" || hosts.length === 0 || new URL(origin).origin !== origin) {
      return reply.code(204).send();
    }
    const [row] = await app.deps.db.rows<{ ok: boolean }>(sql`
      select exists (select 1 from ${verifiedSitesSql()} s
        where s.host = any(string_to_array(${hosts.join(",")}::text, ','))
          and ${organisationActiveSql(sql`s.organisation_id`)}) as ok`);
    if (!row?.ok) return reply.code(204).send();
    return reply
      .code(204)
      .headers({
        ...corsTo(origin),
        "access-control-allow-methods": "GET, POST",
        "access-control-allow-headers": "authorization, content-type",
        "access-control-max-age": "600",
      })
      .send();
  };
  for (const url of ["/call-status/stream", "/call-status/checks/:id", "/call-status/report"]) {
    app.options(url, { config: { statusToken: true, anonymous: ANONYMOUS_READ_ONLY } }, preflight);
  }

  app.get(
    "/call-status/stream",
    {
      ...component,
      schema: {
        operationId: "callStatusStream",
        summary: "The customer's live call status (the call-status component's stream)",
        description:
          "`text/event-stream` over `fetch` with `Authorization: Bearer cps_…` from exactly the token's origin: `state` at once and on every change, `ping` at least every 15 s once the server confirmed the state, `end` `{reason}` when the token expires or is revoked. At most 3 open streams per token and 20 per client address (429); past the server's cap 503 with `Retry-After`. docs/calls.md, \"The component's protocol\".",
        security: componentSecurity,
        response: {
          200: textAnswer(
            "text/event-stream",
            "Server-sent events: `state`, `ping`, `end`",
            'event: state\ndata: {"companyName":"Globex","calling":[],"lastCallAt":null,"check":null,"canAnswer":false}\n\n',
          ),
          401: errorAnswer,
          403: errorAnswer,
          429: errorAnswer,
          503: errorAnswer,
        },
      },
    },
    async (request, reply) => {
      const token = tokenOf(request);
      const cors = corsTo(token.origin);
      const refused = streams.refusal(token.id, request.clientKey);
      if (refused === "process") throw statusErrors.busy(cors);
      if (refused) throw statusErrors.tooManyStreams(cors);
      const now = app.deps.clock.now();
      const status = await callStatusOf(app.deps.db, token.organisationId, token.customerHash, now);
      const opened = openComponentStream(streams, {
        tokenId: token.id,
        organisationId: token.organisationId,
        customerHash: token.customerHash,
        clientKey: request.clientKey,
        first: toComponentState(token, status, now),
        look: () => live.look(app, token.id),
        subscribe: (listener) => live.subscribeCustomer(app, token.organisationId, token.customerHash, listener),
        now: () => app.deps.clock.now(),
      });
      if (opened === "process") throw statusErrors.busy(cors);
      if (typeof opened === "string") throw statusErrors.tooManyStreams(cors);
      reply.raw.on("close", opened.close);
      sseHeaders(reply);
      return reply.send(opened.body as unknown as string);
    },
  );

  app.post(
    "/call-status/checks/:id",
    {
      ...component,
      schema: {
        operationId: "callStatusAnswerCheck",
        summary: "The customer's answer to a check (the call-status component, a token minted with answer)",
        description:
          "403 for a token not minted with `answer: true`; 404 when the check is not this customer's with this organisation; 409 when it is no longer pending.",
        security: componentSecurity,
        params: componentCheckParams,
        body: componentAnswerBody,
        response: {
          200: componentAnswerAnswer,
          400: errorAnswer,
          401: errorAnswer,
          403: errorAnswer,
          404: errorAnswer,
          409: errorAnswer,
        },
      },
    },
    async (request) => {
      const token = tokenOf(request);
      if (!token.canAnswer) throw statusErrors.cannotAnswer(corsTo(token.origin));
      return live.answer(app, request, token, request.params.id, request.body.answer);
    },
  );

  app.post(
    "/call-status/report",
    {
      ...component,
      schema: {
        operationId: "callStatusReport",
        summary: "Report this call (the call-status component): to the token's organisation",
        security: componentSecurity,
        body: componentReportBody,
        response: { 201: messageAnswer, 400: errorAnswer, 401: errorAnswer, 403: errorAnswer, 429: errorAnswer },
      },
    },
    async (request, reply) => {
      const token = tokenOf(request);
      const { language: asked, ...body } = request.body;
      const language = requestLanguage(asked, request.headers["accept-language"]);
      reply.header("content-language", language);
      const message = await live.report(app, request, token, body, language);
      return reply.code(201).send({ message });
    },
  );
}
