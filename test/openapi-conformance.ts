import type { App } from "@server/types";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { FastifyRequest } from "fastify";

/** One real answer of the server: what its route, status, media type and body were. */
export type RecordedAnswer = {
  method: string;
  /** the matched route, as registered (`/api/v1/codes/:id`) */
  route: string;
  url: string;
  status: number;
  contentType: string;
  /** the body as sent; null for a stream */
  body: string | null;
  retryAfter: string | undefined;
};

/**
 * Records every answer of `app` into `answers` (pass it as buildTestApp's `beforeReady`): the payload at
 * onSend, the status and final headers at onResponse (a SCIM route sets its media type in a later onSend).
 */
export function recordAnswers(answers: RecordedAnswer[]) {
  return (app: App) => {
    const pending = new WeakMap<FastifyRequest, RecordedAnswer>();
    app.addHook("onSend", async (request, reply, payload) => {
      if (!request.routeOptions.url) return payload;
      const answer: RecordedAnswer = {
        method: request.method,
        route: request.routeOptions.url,
        url: request.url,
        status: reply.statusCode,
        contentType: String(reply.getHeader("content-type") ?? ""),
        body: typeof payload === "string" ? payload : Buffer.isBuffer(payload) ? payload.toString("utf8") : null,
        retryAfter: reply.getHeader("retry-after") as string | undefined,
      };
      answers.push(answer);
      pending.set(request, answer);
      return payload;
    });
    app.addHook("onResponse", async (request, reply) => {
      const answer = pending.get(request);
      if (!answer) return;
      answer.status = reply.statusCode;
      answer.contentType = String(reply.getHeader("content-type") ?? answer.contentType);
      answer.retryAfter = (reply.getHeader("retry-after") as string | undefined) ?? answer.retryAfter;
    });
  };
}

type MediaObject = { schema?: object };
type ResponseObject = { content?: Record<string, MediaObject>; headers?: Record<string, unknown> };
type OperationObject = { responses: Record<string, ResponseObject> };
export type OpenapiDocument = {
  paths: Record<string, Record<string, OperationObject>>;
  components?: { schemas?: Record<string, object> };
};

/** `/api/v1/codes/:id` → `/api/v1/codes/{id}` */
export const openapiPath = (route: string) => route.replace(/:([A-Za-z0-9_]+)/g, "{$1}");

/** The routes the document leaves out on purpose: itself, its HTML viewer, CORS preflights, outside /api. */
export const undocumented = (method: string, route: string) =>
  method === "OPTIONS" ||
  method === "HEAD" ||
  !route.startsWith("/api/") ||
  route.startsWith("/api/docs") ||
  route === "/api/openapi.json";

/**
 * Checks one answer against the document: its operation exists, its status is documented, its media type
 * is the documented one, its body matches that response's schema, and a 429 or 503 carries Retry-After.
 * Answers a list of what is wrong (empty when it conforms).
 */
export function conformance(document: OpenapiDocument) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  // `#/components/schemas/…` references resolve in the document itself.
  ajv.addSchema({ $id: "openapi.json", components: document.components ?? {} });
  const resolvable = (schema: object) =>
    JSON.parse(JSON.stringify(schema).replaceAll('"$ref":"#/components/', '"$ref":"openapi.json#/components/'));
  const validators = new Map<object, ReturnType<typeof ajv.compile>>();
  const validatorOf = (schema: object) => {
    let validate = validators.get(schema);
    if (!validate) {
      validate = ajv.compile(resolvable(schema));
      validators.set(schema, validate);
    }
    return validate;
  };

  return (answer: RecordedAnswer): string[] => {
    const where = `${answer.method} ${answer.route} → ${answer.status}`;
    const operation = document.paths[openapiPath(answer.route)]?.[answer.method.toLowerCase()];
    if (!operation) return [`${where}: the route is not in the document`];
    const response = operation.responses[String(answer.status)];
    if (!response) return [`${where}: status not documented (documented: ${Object.keys(operation.responses)})`];
    const problems: string[] = [];
    if ((answer.status === 429 || answer.status === 503) && !answer.retryAfter) {
      problems.push(`${where}: no Retry-After header`);
    }
    const media = answer.contentType.split(";")[0]?.trim() ?? "";
    const empty = answer.body === "" || answer.status === 204 || (answer.status >= 300 && answer.status < 400);
    if (empty) {
      if (response.content && answer.status !== 200) problems.push(`${where}: documented with a body, answered none`);
      return problems;
    }
    const documented = response.content?.[media];
    if (!documented) {
      return [...problems, `${where}: media type ${media} not documented (${Object.keys(response.content ?? {})})`];
    }
    if (!documented.schema || answer.body === null) return problems;
    const value = media.endsWith("json") ? JSON.parse(answer.body) : answer.body;
    const validate = validatorOf(documented.schema);
    if (!validate(value)) {
      problems.push(
        `${where}: body does not match: ${ajv.errorsText(validate.errors)}; body: ${answer.body.slice(0, 300)}`,
      );
    }
    return problems;
  };
}
