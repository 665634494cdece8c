/**
 * How a route answers callers without a session, declared in its route config (`config.anonymous`) and
 * checked by src/server/plugins/anonymous-routes.test.ts, which walks every route the server registers.
 *
 * The rule (docs/security.md, "Anonymous routes"): a route that answers a caller without a session with
 * anything but 401 declares one of these; so does any route whose anonymous requests may write anything
 * (a 401 that audits its refusals, as SCIM and /api/v1 do, included).
 * - `anonymousLimit({ limit, windowMs })`: it may write, and counts each request per client address
 *   (IPv6 by /64) *before* any write; beyond `limit` in `windowMs` it answers 429 and writes nothing but
 *   its refusals' audit rows, 1st, 10th, 100th… (lib/rate-limit `auditsRefusal`). The test floods it past
 *   the limit and allows at most 3 new rows in any table but `rate_limits`.
 * - `ANONYMOUS_READ_ONLY`: it never writes; the test sends it 10 requests and allows no new row.
 * Exempt: GET routes outside /api (health, metrics, static files) and Swagger UI under /api/docs.
 */
export type AnonymousAccess = { readOnly: true } | { limit: { perAddress: number; windowMs: number } };

export const ANONYMOUS_READ_ONLY: AnonymousAccess = { readOnly: true };

/** A route that may write, limited per client address before any write. */
export function anonymousLimit(limit: { limit: number; windowMs: number }): AnonymousAccess {
  return { limit: { perAddress: limit.limit, windowMs: limit.windowMs } };
}

declare module "fastify" {
  interface FastifyContextConfig {
    /** how the route answers callers without a session: see lib/anonymous-access.ts */
    anonymous?: AnonymousAccess;
  }
}
