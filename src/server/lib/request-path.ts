import type { FastifyRequest } from "fastify";

/**
 * The path a request was routed by: the matched route's pattern, or for an unmatched request its path
 * with percent-escapes decoded (as the router decodes them). Every decision about "is this the API"
 * (sessions, CSRF, Origin, no-store) uses it, never the raw URL: `/%61pi/auth/login` is routed to
 * `/api/auth/login` and must be checked as such.
 */
export function routedPath(request: FastifyRequest): string {
  const matched = request.routeOptions.url;
  if (matched) return matched;
  const raw = request.url.split("?")[0] ?? "";
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** Whether the request is an API call (under /api/), by the path it was routed by. */
export const isApiRequest = (request: FastifyRequest) => routedPath(request).startsWith("/api/");
