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
export type AnonymousAccess =
  | { readOnly: true }
  | { limit: { perAddress: number; windowMs: number; refusedWith: number } };

export const ANONYMOUS_READ_ONLY: AnonymousAccess = { readOnly: true };

/**
 * A route that may write, limited per client address before any write. `refusedWith`: the status past the
 * limit, 429 unless the route's contract says otherwise (the SSO callback redirects every failure to /login).
 */
export function anonymousLimit(limit: { limit: number; windowMs: number; refusedWith?: number }): AnonymousAccess {
  return { limit: { perAddress: limit.limit, windowMs: limit.windowMs, refusedWith: limit.refusedWith ?? 429 } };
}

declare module "fastify" {
  interface FastifyContextConfig {
    /** how the route answers callers without a session: see lib/anonymous-access.ts */
    anonymous?: AnonymousAccess;
  }
}
