import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import { ANONYMOUS_READ_ONLY } from "@server/lib/anonymous-access";
import { errorAnswer } from "@shared/answers";
import { scimErrorAnswer } from "@shared/scim";
import type { RouteOptions } from "fastify";
import fp from "fastify-plugin";
import { jsonSchemaTransform } from "fastify-type-provider-zod";
import { requireUser } from "./guards";

/** A tag of the document: a feature of the registry (its folder) and what it is for. */
export type OpenapiTag = { name: string; description: string };

const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const SCIM_PREFIX = "/api/scim/v2";

/** Fastify's own answer to a path parameter over `maxParamLength` (100): before any route runs. */

const STATUS_TEXT: Record<string, string> = {
  "200": "Success",
  "201": "Created",
  "202": "Accepted",
  "204": "Done; no content",
  "302": "A redirect (see `Location`)",
  "400": "The request is not valid (its body, query or path, or a rule it breaks); `message` says what",
  "401": "No valid credentials: signed out, or a missing, unknown or revoked token",
  "403":
    "Refused: the role or scope is not enough, or (unsafe calls with a session) the CSRF token or `Origin` is wrong",
  "404": "No such record, or not one the caller may see",
  "409": "In conflict with the current state",
  "413": "The request body is larger than 1 MB",
  "415": "The request body's `Content-Type` is not one the call accepts",
  "429": "Too many requests: wait for `Retry-After` seconds",
  "503": "The database is unreachable for now: try again after `Retry-After` seconds",
};

/** How a route is reached, from its config (the same fields the session plugin and the key checks read). */
type Access = "apiKey" | "scimToken" | "statusToken" | "widget" | "anonymous" | "session";

function accessOf(route: RouteOptions): Access {
  const config = route.config ?? {};
  if (config.bearer) return route.url.startsWith(SCIM_PREFIX) ? "scimToken" : "apiKey";
  if (config.statusToken) return "statusToken";
  if (config.widget) return "widget";
  if (config.anonymous) return "anonymous";
  return "session";
}

/**
 * The security requirement of a route. Session routes need the cookie, and for unsafe methods the CSRF
 * header too (both schemes at once); routes open to callers without a session still need the CSRF header
 * for unsafe methods; the widget's calls need nothing; bearer routes their own token.
 */
function securityOf(access: Access, unsafe: boolean): Array<Record<string, string[]>> {
  switch (access) {
    case "apiKey":
      return [{ apiKey: [] }];
    case "scimToken":
      return [{ scimToken: [] }];
    case "statusToken":
      return [{ statusToken: [] }];
    case "widget":
      return [];
    case "anonymous":
      return unsafe ? [{ csrfToken: [] }] : [];
    case "session":
      return unsafe ? [{ session: [], csrfToken: [] }] : [{ session: [] }];
  }
}

/** A guard other than "signed in" (a role guard) may answer 403. */
function hasRoleGuard(route: RouteOptions): boolean {
  const guards = [route.preValidation, route.preHandler].flat().filter(Boolean);
  return guards.some((guard) => guard !== requireUser);
}

/** The roles a route's guard lets in (guards.ts `requireRole` names them), or null for any signed-in person. */
function rolesOf(route: RouteOptions): readonly string[] | null {
  for (const guard of [route.preValidation, route.preHandler].flat()) {
    const roles = (guard as { roles?: readonly string[] } | undefined)?.roles;
    if (roles) return roles;
  }
  return null;
}

const ROLE_NAMES: Record<string, string> = {
  admin: "platform admin",
  superuser: "employer (superuser)",
  client: "employee",
};

function perWindow(windowMs: number): string {
  const minutes = windowMs / 60_000;
  if (minutes === 60) return "an hour";
  if (minutes === 1) return "a minute";
  return minutes % 60 === 0 ? `${minutes / 60} hours` : `${minutes} minutes`;
}

/** "Who may call": what the session plugin, the guards, the key checks and the route's limit decide. */
function whoMayCall(route: RouteOptions, access: Access, unsafe: boolean): string {
  const anonymous = route.config?.anonymous;
  const limit =
    anonymous && "limit" in anonymous
      ? ` Limited per client address (${anonymous.limit.perAddress} in ${perWindow(anonymous.limit.windowMs)}), then ${anonymous.limit.refusedWith}.`
      : "";
  const csrf = unsafe ? " and the `X-XSRF-TOKEN` header" : "";
  switch (access) {
    case "apiKey":
      return "**Who:** an organisation's API key (`Authorization: Bearer cpk_…`) with the scope the summary names; at most 600 calls a minute per key (then 429).";
    case "scimToken":
      return `**Who:** the organisation's identity provider, with its SCIM token (\`Authorization: Bearer\`).${limit}`;
    case "statusToken":
      return "**Who:** the call-status component, with a status token (`Authorization: Bearer cps_…`) from exactly the origin it was minted for (CORS to that origin only, without credentials; cookies are ignored).";
    case "widget":
      return `**Who:** anyone, from any site (CORS without credentials; cookies are ignored).${limit}`;
    case "anonymous":
      return `**Who:** anyone, no session needed${unsafe ? " (with the `X-XSRF-TOKEN` header)" : ""}.${limit}`;
    case "session": {
      const roles = rolesOf(route);
      const who = roles ? roles.map((r) => ROLE_NAMES[r] ?? r).join(" or ") : "anyone signed in";
      return `**Who:** ${roles ? `a signed-in ${who}` : who} (the session cookie${csrf}).`;
    }
  }
}

/**
 * The error statuses every route of its kind can answer, whatever its handler does: validation (400),
 * credentials (401), CSRF, Origin and roles (403), unknown records (404), body size and type (413, 415),
 * limits (429) and an unreachable database (503). A path parameter of any length reaches its route (no
 * 414: the route's own checks and 404 answer it). A route declares the others
 * (409, a service's 404) in its own schema.
 */
function commonStatuses(route: RouteOptions, access: Access): number[] {
  const method = [route.method].flat()[0] ?? "GET";
  const unsafe = UNSAFE.has(method);
  const schema = route.schema ?? {};
  const hasParams = route.url.includes(":");
  const statuses = new Set<number>([503]);
  if (schema.body || schema.querystring || schema.params || unsafe) statuses.add(400);
  if (access === "session" || access === "apiKey" || access === "scimToken" || access === "statusToken")
    statuses.add(401);
  if (access === "apiKey" || access === "statusToken") statuses.add(403);
  if ((access === "session" || access === "anonymous") && unsafe) statuses.add(403);
  if (access === "session" && hasRoleGuard(route)) statuses.add(403);
  if (hasParams) statuses.add(404);
  if (unsafe) statuses.add(413).add(415);
  const limit = route.config?.anonymous && "limit" in route.config.anonymous ? route.config.anonymous.limit : null;
  if (access === "apiKey" || (limit && limit.refusedWith === 429)) statuses.add(429);
  return [...statuses];
}

type RouteSchema = Record<string, unknown> & { response?: Record<string, unknown> };

/**
 * Completes one route's schema before it is turned into an operation: its security, the statuses every
 * route of its kind answers (with SCIM's error schema under /api/scim/v2), and `Retry-After` on 429/503.
 */
function completeRoute(route: RouteOptions): RouteSchema | undefined {
  const schema = route.schema as RouteSchema | undefined;
  if (!schema || schema.hide) return schema;
  const method = [route.method].flat()[0] ?? "GET";
  const access = accessOf(route);
  const error = access === "scimToken" ? scimErrorAnswer : errorAnswer;
  const response: Record<string, unknown> = { ...schema.response };
  for (const status of commonStatuses(route, access)) {
    response[status] ??= error;
  }
  const who = whoMayCall(route, access, UNSAFE.has(method));
  return {
    ...schema,
    description: [schema.description, who].filter(Boolean).join("\n\n"),
    security: schema.security ?? securityOf(access, UNSAFE.has(method)),
    response,
  };
}

type Operation = {
  responses?: Record<
    string,
    { description?: string; headers?: Record<string, unknown>; content?: Record<string, unknown> }
  >;
  requestBody?: { content?: Record<string, unknown> };
};

/** application/json → application/scim+json in a content map (SCIM answers and takes scim+json). */
function asScim(content: Record<string, unknown> | undefined, alsoJson: boolean) {
  const json = content?.["application/json"];
  if (!content || !json) return content;
  const { "application/json": _json, ...rest } = content;
  return { "application/scim+json": json, ...(alsoJson ? { "application/json": json } : {}), ...rest };
}

/** The error answers, by their properties: one named schema each instead of a copy in every response. */
const NAMED_ERRORS: Record<string, string> = { "code,message": "Error", "detail,schemas,scimType,status": "ScimError" };

/**
 * Replaces each error answer's schema by a reference to its named schema in `components`, when it is
 * exactly the first one seen under that name (another shape with the same properties stays inline).
 */
function nameErrorSchemas(operation: Operation, components: Record<string, object>) {
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    if (Number(status) < 400) continue;
    for (const media of Object.values((response.content ?? {}) as Record<string, { schema?: object }>)) {
      const schema = media.schema as { properties?: object } | undefined;
      const name =
        NAMED_ERRORS[
          Object.keys(schema?.properties ?? {})
            .sort()
            .join(",")
        ];
      if (!schema || !name) continue;
      components[name] ??= schema;
      if (JSON.stringify(components[name]) === JSON.stringify(schema))
        media.schema = { $ref: `#/components/schemas/${name}` };
    }
  }
}

/** Final touches on each operation: response descriptions, headers, SCIM's media type. */
function completeOperation(path: string, operation: Operation) {
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    if (!response.description || response.description === "Default Response") {
      response.description = STATUS_TEXT[status] ?? "Answer";
    }
    if (status === "429" || status === "503") {
      response.headers = {
        ...response.headers,
        "Retry-After": { description: "Seconds to wait before trying again", schema: { type: "integer", minimum: 1 } },
      };
    }
    if (status.startsWith("3")) {
      response.headers = { ...response.headers, Location: { description: "Where to go", schema: { type: "string" } } };
    }
    if (path.startsWith(SCIM_PREFIX)) response.content = asScim(response.content, false);
  }
  if (path.startsWith(SCIM_PREFIX) && operation.requestBody) {
    operation.requestBody.content = asScim(operation.requestBody.content, true);
  }
}

/**
 * The API description: an OpenAPI 3.1 document built from the zod schemas the routes validate with
 * (GET /api/openapi.json), and Swagger UI rendering it (GET /api/docs), served from this server.
 * Register it before the routes: it records each route as it is added. Each route gives its `summary` and
 * `operationId` (generators name methods after it) in its schema; the security, the statuses common to
 * its kind of route and their descriptions are added here from the route's config, so that they agree
 * with what the session plugin, the key checks and the error handler do (test: openapi-answers.test.ts).
 */
export default fp<{ tags?: OpenapiTag[] }>(
  async (app, opts) => {
    const { config } = app.deps;
    await app.register(swagger, {
      openapi: {
        openapi: "3.1.0",
        info: {
          title: "CallProof API",
          version: "1",
          description:
            "Caller verification. Errors answer `{message, code}` (SCIM: the SCIM error schema). " +
            "The web app's calls use the session cookie; their unsafe methods also need the `X-XSRF-TOKEN` header " +
            "equal to the `XSRF-TOKEN` cookie (every answer sets one). `/api/v1` takes an organisation's API key, " +
            "`/api/scim/v2` its SCIM token, both as `Authorization: Bearer`.",
          contact: { name: "Support", url: `${config.publicUrl}/contact` },
        },
        servers: [{ url: config.publicUrl, description: "This deployment (PUBLIC_URL)" }],
        tags: opts.tags,
        components: {
          securitySchemes: {
            session: {
              type: "apiKey",
              in: "cookie",
              name: config.secureCookies ? "__Host-cp_session" : "cp_session",
              description:
                "The session cookie, set by a successful sign-in (POST /api/auth/verify-2fa, a passkey or single sign-on).",
            },
            csrfToken: {
              type: "apiKey",
              in: "header",
              name: "X-XSRF-TOKEN",
              description:
                "The value of the `XSRF-TOKEN` cookie, which every answer without a valid one sets; required with " +
                "POST, PUT, PATCH and DELETE (except the widget's calls), else 403. An `Origin` other than this site's is refused 403 too.",
            },
            // /api/v1 (docs/integration.md): an organisation's API key, `Authorization: Bearer cpk_…`
            apiKey: {
              type: "http",
              scheme: "bearer",
              bearerFormat: "cpk_…",
              description: "An organisation's API key (/api/v1 only), with the scopes the call names",
            },
            scimToken: {
              type: "http",
              scheme: "bearer",
              description: "The organisation's SCIM token (/api/scim/v2 only)",
            },
            statusToken: {
              type: "http",
              scheme: "bearer",
              bearerFormat: "cps_…",
              description:
                "A customer's status token (/api/call-status… only), minted by POST /api/v1/customers/status-token and bound to one origin",
            },
          },
        },
      },
      transform: ({ schema, url, route, ...rest }) => {
        // CORS preflights are the browser's business, not a call to document.
        if ([route.method].flat().includes("OPTIONS")) return { schema: { hide: true }, url };
        const completed = completeRoute({ ...route, schema: schema as RouteOptions["schema"] } as RouteOptions);
        return jsonSchemaTransform({ schema: completed as typeof schema, url, route, ...rest });
      },
      transformObject: (document) => {
        if (!("openapiObject" in document)) return document.swaggerObject;
        const { openapiObject } = document;
        const schemas: Record<string, object> = {};
        for (const [path, operations] of Object.entries(openapiObject.paths ?? {})) {
          for (const operation of Object.values(operations as Record<string, Operation>)) {
            completeOperation(path, operation);
            nameErrorSchemas(operation, schemas);
          }
        }
        openapiObject.components = {
          ...openapiObject.components,
          schemas: { ...openapiObject.components?.schemas, ...schemas },
        } as typeof openapiObject.components;
        return openapiObject;
      },
    });

    await app.register(swaggerUi, {
      routePrefix: "/api/docs",
      logLevel: "warn",
      uiConfig: { deepLinking: false },
      validatorUrl: false,
    });

    app.get(
      "/api/openapi.json",
      { config: { anonymous: ANONYMOUS_READ_ONLY }, schema: { hide: true }, logLevel: "warn" },
      async () => app.swagger(),
    );
  },
  { name: "openapi", fastify: "5.x" },
);
