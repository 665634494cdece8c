import { DATABASE_UNAVAILABLE, isDatabaseUnavailable, refusedInput, sqlState } from "@server/lib/database-errors";
import { HttpError } from "@server/lib/errors";
import { routedPath } from "@server/lib/request-path";
import { ERROR_CODES } from "@shared/error-codes";
import { MESSAGES } from "@shared/messages";
import { SCIM_PATH, SCIM_SCHEMAS } from "@shared/scim";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";

type Answer = { status: number; code: string; message: string };

/** What a client error of Fastify itself (body parsing, schemas) answers. */
function clientError(err: FastifyError): Answer | null {
  if (hasZodFastifySchemaValidationErrors(err)) {
    const first = err.validation[0];
    const message =
      (first?.instancePath ?? "") === "" || !first?.message
        ? `The request ${err.validationContext ?? "body"} must be a JSON object with the expected fields.`
        : first.message;
    return { status: 400, code: ERROR_CODES.validation, message };
  }
  switch (err.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return { status: 413, code: ERROR_CODES.bodyTooLarge, message: MESSAGES.bodyTooLarge };
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return { status: 415, code: ERROR_CODES.unsupportedMediaType, message: MESSAGES.unsupportedMediaType };
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
    case "FST_ERR_CTP_INVALID_JSON_BODY":
      return { status: 400, code: ERROR_CODES.malformedJson, message: MESSAGES.malformedJson };
  }
  if (err instanceof SyntaxError)
    return { status: 400, code: ERROR_CODES.malformedJson, message: MESSAGES.malformedJson };
  const status = err.statusCode;
  if (status && status >= 400 && status < 500) {
    return { status, code: status === 404 ? ERROR_CODES.notFound : ERROR_CODES.badRequest, message: err.message };
  }
  return null;
}

/** One place that turns every error into `{message, code}` with the right status; 5xx details stay in the log. */
export default fp(
  async (app) => {
    app.setErrorHandler((err: FastifyError, request, reply) => {
      if (err instanceof HttpError) {
        return reply.code(err.statusCode).headers(err.headers).send({ message: err.message, code: err.code });
      }
      const refused = refusedInput(err);
      if (refused) {
        // the SQLSTATE alone: the database's message may quote the value
        request.log.warn({ sqlState: sqlState(err) }, "value refused by the database");
        return reply.code(400).send({ message: refused.message, code: refused.code });
      }
      const answer = clientError(err);
      if (answer) return reply.code(answer.status).send({ message: answer.message, code: answer.code });
      if (isDatabaseUnavailable(err)) {
        request.log.warn({ err }, "database unavailable");
        return reply.code(503).header("retry-after", "5").send(DATABASE_UNAVAILABLE);
      }
      request.log.error({ err }, "unhandled error");
      return reply.code(500).send({ message: MESSAGES.internalError, code: ERROR_CODES.internal });
    });
  },
  { name: "error-handler" },
);

/**
 * Fastify's errors before a route is matched (the server option `frameworkErrors`), all about the URL:
 * a path whose percent-encoding does not decode. Its default answer quotes the path; this one names the
 * fault only, in the SCIM error schema under /api/scim/v2 (identity providers read nothing else). No
 * route's parameter is too long to be routed (`maxParamLength` in app.ts): a long id reaches its route.
 */
export function frameworkErrors(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 400;
  const path = routedPath(request);
  if (path === SCIM_PATH || path.startsWith(`${SCIM_PATH}/`)) {
    return reply
      .code(status)
      .type("application/scim+json; charset=utf-8")
      .send({
        schemas: [SCIM_SCHEMAS.error],
        status: String(status),
        scimType: "invalidValue",
        detail: MESSAGES.badUrl,
      });
  }
  return reply.code(status).send({ message: MESSAGES.badUrl, code: ERROR_CODES.badRequest });
}
