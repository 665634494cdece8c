import { isApiRequest } from "@server/lib/request-path";
import fp from "fastify-plugin";

const SECURITY_HEADERS = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'; object-src 'none'",
};

/** Browsers keep to https for this host (and its subdomains) for two years once they have seen it. */
const HSTS = "max-age=63072000; includeSubDomains";

/** Security headers on every answer (HSTS when the product is served over https); API answers are never cached. */
export default fp(
  async (app) => {
    const https = app.deps.config.secureCookies;
    app.addHook("onSend", async (request, reply) => {
      reply.headers(SECURITY_HEADERS);
      if (https) reply.header("strict-transport-security", HSTS);
      if (isApiRequest(request)) reply.header("cache-control", "no-store");
    });
  },
  { name: "security-headers", dependencies: ["deps"] },
);
