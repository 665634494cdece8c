import fp from "fastify-plugin";

const SECURITY_HEADERS = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'; object-src 'none'",
};

/** Security headers on every answer; API answers are never cached. */
export default fp(
  async (app) => {
    app.addHook("onSend", async (request, reply) => {
      reply.headers(SECURITY_HEADERS);
      if (request.url.startsWith("/api/")) reply.header("cache-control", "no-store");
    });
  },
  { name: "security-headers" },
);
