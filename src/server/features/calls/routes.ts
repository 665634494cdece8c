import { signedIn } from "@server/context";
import { sseHeaders } from "@server/lib/event-stream";
import { requireUser } from "@server/plugins/guards";
import type { App } from "@server/types";
import { errorAnswer, textAnswer } from "@shared/answers";
import {
  CALL_LIMITS,
  callAnswer,
  callBody,
  callIdParams,
  checkCreatedAnswer,
  currentCallAnswer,
  okAnswer,
  renewAnswer,
} from "@shared/calls";
import { callsErrors } from "./errors";
import { openCallStream } from "./live";
import * as calls from "./service";
import v1CallsRoutes from "./v1-routes";

const refusals = { 401: errorAnswer, 403: errorAnswer, 404: errorAnswer };

export const callEventsAnswer = textAnswer(
  "text/event-stream",
  'Server-sent events: `check` {id, status, answeredAt, answeredVia} at once (when the call has a check) and on every change of the call\'s latest check; `colleague` {count} at once and whenever the number of other employees on a call with the same customer changes; `call` {status: "ended"} when the call ends, then the end',
  'retry: 2000\n\nevent: colleague\ndata: {"count":0}\n\nevent: check\ndata: {"id":"chk_x","status":"confirmed","answeredAt":"2026-11-25T09:30:00.000Z","answeredVia":"component","keyName":null}\n\n',
);

/** The employee's calls (/api/calls…) and the dialler's (/api/v1/calls…, /api/v1/customer-checks…). */
export default async function callsRoutes(app: App) {
  app.post(
    "/calls",
    {
      preValidation: requireUser,
      schema: {
        operationId: "startCall",
        summary: "Start a call with a customer (an active call of the same person ends first)",
        body: callBody,
        response: { 201: callAnswer, 400: errorAnswer, 429: errorAnswer, ...refusals },
      },
    },
    async (request, reply) => {
      const answer = await calls.startOwnCall(app.deps, request.actor, request.sessionHash, request.body);
      return reply.code(201).send(answer);
    },
  );

  app.get(
    "/calls/current",
    {
      preValidation: requireUser,
      schema: {
        operationId: "getCurrentCall",
        summary: "The signed-in employee's active call, or null",
        response: { 200: currentCallAnswer, ...refusals },
      },
    },
    async (request) => calls.currentCall(app.deps, request.actor),
  );

  app.post(
    "/calls/:id/renew",
    {
      preValidation: requireUser,
      schema: {
        operationId: "renewCall",
        summary: "Keep the employee's call alive (2 more minutes, 60 at most)",
        params: callIdParams,
        response: { 200: renewAnswer, 409: errorAnswer, ...refusals },
      },
    },
    async (request) => calls.renewOwnCall(app.deps, request.actor, request.params.id),
  );

  app.post(
    "/calls/:id/end",
    {
      preValidation: requireUser,
      schema: {
        operationId: "endCall",
        summary: "End the employee's call",
        params: callIdParams,
        response: { 200: okAnswer, ...refusals },
      },
    },
    async (request) => calls.endOwnCall(app.deps, request.actor, request.params.id),
  );

  app.post(
    "/calls/:id/disown",
    {
      preValidation: requireUser,
      schema: {
        operationId: "disownCall",
        summary: "Not my call: end a call started through the API in the employee's name, and raise an alert",
        params: callIdParams,
        response: { 200: okAnswer, 409: errorAnswer, ...refusals },
      },
    },
    async (request) => calls.disownCall(app.deps, request.actor, request.params.id),
  );

  app.post(
    "/calls/:id/customer-check",
    {
      preValidation: requireUser,
      schema: {
        operationId: "requestCustomerCheck",
        summary: "Ask the customer to confirm in their app (2 minutes)",
        params: callIdParams,
        response: { 201: checkCreatedAnswer, 409: errorAnswer, 429: errorAnswer, ...refusals },
      },
    },
    async (request, reply) => {
      const answer = await calls.requestOwnCheck(app.deps, request.actor, request.params.id);
      return reply.code(201).send(answer);
    },
  );

  app.get(
    "/calls/:id/events",
    {
      preValidation: requireUser,
      schema: {
        operationId: "streamCallEvents",
        summary: "The call's live check, colleagues and end (server-sent events)",
        params: callIdParams,
        response: { 200: callEventsAnswer, 429: errorAnswer, ...refusals },
      },
    },
    async (request, reply) => {
      const call = await calls.ownCallOf(app.deps, request.actor, request.params.id);
      const stream = openCallStream(
        { events: app.callEvents, streams: app.callStreams },
        {
          userId: signedIn(request.actor).id,
          max: CALL_LIMITS.streamsPerEmployee,
          callId: call.id,
          organisationId: call.organisation_id,
          customerHash: call.customer_hash,
          read: () => calls.callStreamState(app.deps, call),
        },
      );
      if (!stream) throw callsErrors.tooManyStreams();
      reply.raw.on("close", stream.close);
      sseHeaders(reply);
      return reply.send(stream.body as unknown as string);
    },
  );

  await v1CallsRoutes(app);
}
