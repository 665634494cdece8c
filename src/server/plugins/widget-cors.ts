import type { FastifyReply, FastifyRequest } from "fastify";

/** CORS for the widget's calls: any origin, never credentials (cookies are not wanted and not read). */
const CORS_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "POST",
  "access-control-allow-headers": "content-type",
  "access-control-max-age": "7200",
};

/**
 * onRequest hook of the widget's calls (POST /api/verify, POST /api/reports): every answer, errors
 * included, is readable cross-origin. Routes using it set `config: { widget: true }` so that the
 * session plugin neither reads nor sets cookies and asks for no CSRF token.
 */
export async function widgetCall(_request: FastifyRequest, reply: FastifyReply) {
  reply.headers(CORS_HEADERS);
}
