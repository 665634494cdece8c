import { DATABASE_UNAVAILABLE, isDatabaseUnavailable } from "@server/lib/database-errors";
import { HttpError } from "@server/lib/errors";
import { ERROR_CODES } from "@shared/error-codes";
import { MESSAGES } from "@shared/messages";
import type { FastifyError } from "fastify";
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
