import { anonymousLimit } from "@server/lib/anonymous-access";
import { DATABASE_UNAVAILABLE, isDatabaseUnavailable, refusedInput } from "@server/lib/database-errors";
import { HttpError } from "@server/lib/errors";
import { requireRole, requireRoleAudited } from "@server/plugins/guards";
import type { App } from "@server/types";
import { errorAnswer, messageAnswer } from "@shared/answers";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { MESSAGES } from "@shared/messages";
import {
  SCIM_LIMITS,
  SCIM_PATH,
  SCIM_SCHEMAS,
  scimAttributesQuery,
  scimDocument,
  scimErrorAnswer,
  scimListAnswer,
  scimListQuery,
  scimPatchBody,
  scimStatusAnswer,
  scimTokenAnswer,
  scimUser,
  scimUserBody,
} from "@shared/scim";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { z } from "zod";
import { resourceType, resourceTypes, schema, schemas, serviceProviderConfig } from "./documents";
import { SCIM_TYPES, scimErrors } from "./errors";
import * as scim from "./service";
import { createScimToken, revokeScimToken, scimStatus } from "./tokens";

const SCIM_JSON = "application/scim+json; charset=utf-8";

/** The SCIM error schema (RFC 7644 3.12) for one failure. */
function scimError(status: number, detail: string, scimType?: string) {
  return { schemas: [SCIM_SCHEMAS.error], status: String(status), ...(scimType ? { scimType } : {}), detail };
}

/** Every failure under /api/scim/v2, answered in the SCIM error schema; 5xx details stay in the log. */
function scimErrorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  reply.type(SCIM_JSON);
  const refused = refusedInput(err);
  if (refused) {
    // a NUL or lone surrogate in the request, or a value the database refused (in a list: the filter's)
    const scimType =
      request.method === "GET" && request.routeOptions.url?.endsWith("/Users") ? "invalidFilter" : "invalidValue";
    return reply.code(400).send(scimError(400, refused.message, scimType));
  }
  if (err instanceof HttpError) {
    return reply
      .code(err.statusCode)
      .headers(err.headers)
      .send(scimError(err.statusCode, err.message, SCIM_TYPES[err.code]));
  }
  if (hasZodFastifySchemaValidationErrors(err)) {
    const first = err.validation[0];
    const where = first?.instancePath ? ` (${first.instancePath})` : "";
    return reply
      .code(400)
      .send(scimError(400, `The request does not have the expected shape${where}.`, "invalidSyntax"));
  }
  if (err.code === "FST_ERR_CTP_BODY_TOO_LARGE") return reply.code(413).send(scimError(413, MESSAGES.bodyTooLarge));
  if (err.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") {
    return reply.code(415).send(scimError(415, MESSAGES.unsupportedMediaType));
  }
  if (
    err instanceof SyntaxError ||
    err.code === "FST_ERR_CTP_INVALID_JSON_BODY" ||
    err.code === "FST_ERR_CTP_EMPTY_JSON_BODY"
  ) {
    return reply.code(400).send(scimError(400, MESSAGES.malformedJson, "invalidSyntax"));
  }
  if (isDatabaseUnavailable(err)) {
    request.log.warn({ err }, "database unavailable");
    return reply.code(503).header("retry-after", "5").send(scimError(503, DATABASE_UNAVAILABLE.message));
  }
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    return reply.code(err.statusCode).send(scimError(err.statusCode, err.message));
  }
  request.log.error({ err }, "unhandled error");
  return reply.code(500).send(scimError(500, MESSAGES.internalError));
}

const idParams = z.object({ id: z.string() });
const errors = { 400: scimErrorAnswer, 401: scimErrorAnswer, 404: scimErrorAnswer, 409: scimErrorAnswer };
const query = scimAttributesQuery;

/**
 * The SCIM 2.0 API for identity providers, under /api/scim/v2: authenticated by the organisation's bearer
 * token (no cookies, no CSRF token: `config.bearer`), answers in application/scim+json.
 */
async function scimApi(app: App) {
  const clients = new WeakMap<FastifyRequest, scim.ScimClient>();
  const clientOf = (request: FastifyRequest) => {
    const client = clients.get(request);
    if (!client) throw scimErrors.unauthorized();
    return client;
  };

  app.addContentTypeParser("application/scim+json", { parseAs: "string" }, app.getDefaultJsonParser("error", "error"));
  app.setErrorHandler(scimErrorHandler);
  // The token is checked before the body is read: a request without a valid one learns nothing more.
  app.addHook("onRequest", async (request) => {
    const client = await scim.authenticate(app.deps, {
      authorization: request.headers.authorization,
      ip: request.ip,
      clientKey: request.actor.clientKey,
    });
    clients.set(request, client);
  });
  app.addHook("onSend", async (_request, reply, payload) => {
    if (reply.statusCode !== 204) reply.type(SCIM_JSON);
    return payload;
  });

  // Without a valid token every route answers 401 (or 429 past the limit), counted per address before any write.
  const config = {
    bearer: true,
    anonymous: anonymousLimit({ limit: SCIM_LIMITS.refusalsPerWindow, windowMs: SCIM_LIMITS.refusalWindowMs }),
  };
  const { publicUrl } = app.deps.config;

  app.get(
    "/ServiceProviderConfig",
    {
      config,
      schema: {
        operationId: "scimGetServiceProviderConfig",
        summary: "What this SCIM service supports",
        response: { 200: scimDocument },
      },
    },
    async () => serviceProviderConfig(publicUrl),
  );
  app.get(
    "/ResourceTypes",
    {
      config,
      schema: {
        operationId: "scimListResourceTypes",
        summary: "The resource types (User)",
        response: { 200: scimDocument },
      },
    },
    async () => resourceTypes(publicUrl),
  );
  app.get(
    "/Schemas",
    { config, schema: { operationId: "scimListSchemas", summary: "The User schema", response: { 200: scimDocument } } },
    async () => schemas(publicUrl),
  );
  // The documents at the meta.location the lists advertise (RFC 7644 4).
  app.get(
    "/ResourceTypes/:id",
    {
      config,
      schema: {
        operationId: "scimGetResourceType",
        summary: "One resource type (User)",
        params: idParams,
        response: { 200: scimDocument, ...errors },
      },
    },
    async (request) =>
      resourceType(publicUrl, request.params.id) ?? Promise.reject(scimErrors.notFound("No such resource type.")),
  );
  app.get(
    "/Schemas/:id",
    {
      config,
      schema: {
        operationId: "scimGetSchema",
        summary: "One schema, by its URN",
        params: idParams,
        response: { 200: scimDocument, ...errors },
      },
    },
    async (request) => schema(publicUrl, request.params.id) ?? Promise.reject(scimErrors.notFound("No such schema.")),
  );
  app.get(
    "/Users",
    {
      config,
      schema: {
        operationId: "scimListUsers",
        summary: 'The organisation\'s employees; filter=userName eq "…" or externalId eq "…", startIndex, count',
        querystring: scimListQuery,
        response: { 200: scimListAnswer, ...errors },
      },
    },
    async (request) => scim.listUsers(app.deps, clientOf(request), request.query),
  );

  app.post(
    "/Users",
    {
      config,
      schema: {
        operationId: "scimCreateUser",
        summary: "Create an employee",
        querystring: query,
        body: scimUserBody,
        response: { 201: scimUser, ...errors },
      },
    },
    async (request, reply) => {
      const { location, user } = await scim.createUser(app.deps, clientOf(request), request.body, request.query);
      return reply.code(201).header("location", location).send(user);
    },
  );

  app.get(
    "/Users/:id",
    {
      config,
      schema: {
        operationId: "scimGetUser",
        summary: "One employee",
        params: idParams,
        querystring: query,
        response: { 200: scimUser, ...errors },
      },
    },
    async (request) => scim.getUser(app.deps, clientOf(request), request.params.id, request.query),
  );

  app.put(
    "/Users/:id",
    {
      config,
      schema: {
        operationId: "scimReplaceUser",
        summary: "Replace an employee (active: false deactivates)",
        params: idParams,
        querystring: query,
        body: scimUserBody,
        response: { 200: scimUser, ...errors },
      },
    },
    async (request) => scim.replaceUser(app.deps, clientOf(request), request.params.id, request.body, request.query),
  );

  app.patch(
    "/Users/:id",
    {
      config,
      schema: {
        operationId: "scimPatchUser",
        summary: "Change an employee: add, replace, remove (active: false deactivates)",
        params: idParams,
        querystring: query,
        body: scimPatchBody,
        response: { 200: scimUser, ...errors },
      },
    },
    async (request) => scim.patchUser(app.deps, clientOf(request), request.params.id, request.body, request.query),
  );

  app.delete(
    "/Users/:id",
    {
      config,
      schema: {
        operationId: "scimDeleteUser",
        summary: "Deactivate an employee and free their userName",
        params: idParams,
        response: { 204: z.null().describe("Deleted"), ...errors },
      },
    },
    async (request, reply) => {
      await scim.deleteUser(app.deps, clientOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  // /Me and /Bulk: not implemented (RFC 7644 3.11, 3.7), 501 (ServiceProviderConfig says bulk is unsupported).
  // Anything else under /api/scim/v2 (Groups…): a SCIM 404. (Answered here, not by routes: no session or
  // CSRF check applies to a path no route matches, and the token is checked first as for every SCIM call.)
  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split("?")[0]?.slice(SCIM_PATH.length) ?? "";
    const unsupported = /^\/(Me|Bulk)\/?$/i.exec(path)?.[1]?.toLowerCase();
    if (unsupported) {
      const detail =
        unsupported === "me"
          ? "/Me is not supported: a SCIM token speaks for an organisation, not for a user."
          : "Bulk operations are not supported (see ServiceProviderConfig).";
      return reply.code(501).type(SCIM_JSON).send(scimError(501, detail));
    }
    return reply.code(404).type(SCIM_JSON).send(scimError(404, "This SCIM service provides only Users."));
  });
}

/** The employer dashboard's SCIM token (superusers), and the SCIM API itself. */
export default async function scimRoutes(app: App) {
  app.get(
    "/employer/scim",
    {
      preValidation: requireRole("superuser"),
      schema: {
        operationId: "getScimStatus",
        summary: "The SCIM base URL and token status",
        response: { 200: scimStatusAnswer },
      },
    },
    async (request) => scimStatus(app.deps, request.actor),
  );

  app.post(
    "/employer/scim-token",
    {
      preValidation: requireRoleAudited(AUDIT_ACTIONS.createScimToken, "superuser"),
      schema: {
        operationId: "createScimToken",
        summary: "Create the SCIM token (answers it once)",
        response: { 201: scimTokenAnswer },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await createScimToken(app.deps, request.actor, { sessionHash: request.sessionHash })),
  );

  app.delete(
    "/employer/scim-token",
    {
      preValidation: requireRoleAudited(AUDIT_ACTIONS.revokeScimToken, "superuser"),
      schema: {
        operationId: "revokeScimToken",
        summary: "Revoke the SCIM token",
        response: { 404: errorAnswer, 200: messageAnswer },
      },
    },
    async (request) => revokeScimToken(app.deps, request.actor),
  );

  await app.register(scimApi, { prefix: SCIM_PATH.replace(/^\/api/, "") });
}
