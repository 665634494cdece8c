import { MESSAGES } from "@shared/messages";
import type { FastifyError, FastifyInstance } from "fastify";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { DATABASE_UNAVAILABLE, isDatabaseUnavailable } from "../lib/database-errors";
import { HttpError } from "../lib/errors";

/** One place that turns every error into `{message}` with the right status; 5xx details stay in the log. */
export function registerErrorHandler(app: FastifyInstance) {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof HttpError) {
      return reply.code(err.statusCode).headers(err.headers).send({ message: err.message });
    }
    if (hasZodFastifySchemaValidationErrors(err)) {
      const first = err.validation[0];
      const path = first?.instancePath ?? "";
      const message =
        path === "" || !first?.message
          ? `The request ${err.validationContext ?? "body"} must be a JSON object with the expected fields.`
          : first.message;
      return reply.code(400).send({ message });
    }
    switch (err.code) {
      case "FST_ERR_CTP_BODY_TOO_LARGE":
        return reply.code(413).send({ message: MESSAGES.bodyTooLarge });
      case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
        return reply.code(415).send({ message: MESSAGES.unsupportedMediaType });
      case "FST_ERR_CTP_EMPTY_JSON_BODY":
      case "FST_ERR_CTP_INVALID_JSON_BODY":
        return reply.code(400).send({ message: MESSAGES.malformedJson });
    }
    if (err instanceof SyntaxError || (err.statusCode && err.statusCode >= 400 && err.statusCode < 500)) {
      const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 400;
      return reply.code(status).send({ message: status === 400 ? MESSAGES.malformedJson : err.message });
    }
    if (isDatabaseUnavailable(err)) {
      request.log.warn({ err }, "database unavailable");
      return reply.code(503).header("retry-after", "5").send(DATABASE_UNAVAILABLE);
    }
    request.log.error({ err }, "unhandled error");
    return reply.code(500).send({ message: MESSAGES.internalError });
  });
}
