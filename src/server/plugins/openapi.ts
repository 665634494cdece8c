import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import { ANONYMOUS_READ_ONLY } from "@server/lib/anonymous-access";
import fp from "fastify-plugin";
import { jsonSchemaTransform } from "fastify-type-provider-zod";

/**
 * The API description: an OpenAPI 3.1 document built from the zod schemas the routes validate with
 * (GET /api/openapi.json), and Swagger UI rendering it (GET /api/docs), served from this server.
 * Register it before the routes: it records each route as it is added.
 */
export default fp(
  async (app) => {
    await app.register(swagger, {
      openapi: {
        openapi: "3.1.0",
        info: {
          title: "CallProof API",
          version: "1",
          description:
            "Caller verification. Errors answer `{message}` (and a `code` where one is defined). " +
            "Unsafe calls need the `X-XSRF-TOKEN` header equal to the `XSRF-TOKEN` cookie, except `POST /api/verify`.",
        },
        components: {
          securitySchemes: {
            session: { type: "apiKey", in: "cookie", name: "cp_session" },
            // /api/v1 (docs/integration.md): an organisation's API key, `Authorization: Bearer cpk_…`
            apiKey: { type: "http", scheme: "bearer", bearerFormat: "cpk_…", description: "An organisation's API key" },
          },
        },
      },
      transform: jsonSchemaTransform,
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
