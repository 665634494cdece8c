/**
 * The least-work server of the verify benchmark (issue 36): a plain Fastify server, no plugin of the
 * product's, doing the least a look-up needs on the product's database, each statement with its plan cached:
 *   1. a rate-limit upsert (its own counter table, `bench_hits`, keyed by the client IP);
 *   2. an atomic consume of the code by its hash (unused, unexpired), with no join;
 *   3. an audit insert into the product's `audit_log` (so it pays the same indexes and checkpoint).
 * It trusts the loopback proxy's X-Forwarded-For, as the product does in the benchmark.
 */
import { createHmac } from "node:crypto";
import type { Database, Db } from "@server/db/client";
import { sql } from "drizzle-orm";
import Fastify from "fastify";

const iso = (d: Date) => d.toISOString();
const LIMIT = 30;
const WINDOW_MS = 60_000;

/**
 * One look-up of the least-work server, without HTTP: the rate-limit upsert, the consume of the code the
 * words' hash names and the audit insert, each its own statement (three round trips, two commits for a
 * failed look-up). `verified` is whether the consume used a code.
 */
export async function leastWorkLookUp(
  db: Db,
  appSecret: string,
  p: { words: string; ip: string; origin: string | null },
) {
  const now = new Date();
  const [hit] = await db.prepared<{ allowed: boolean }>(
    "lw_hit",
    sql`insert into bench_hits as h (key, n, window_end)
      values (${`lw:${p.ip}`}::text, 1, ${iso(new Date(now.getTime() + WINDOW_MS))}::timestamptz)
      on conflict (key) do update set
        n = case when h.window_end > ${iso(now)}::timestamptz then h.n + 1 else 1 end,
        window_end = case when h.window_end > ${iso(now)}::timestamptz then h.window_end else excluded.window_end end
      returning n <= ${LIMIT}::int as allowed`,
  );
  if (!hit?.allowed) return { allowed: false, verified: false };
  const hash = createHmac("sha256", appSecret).update(p.words).digest("base64url");
  const [used] = await db.prepared<{ id: number; user_id: number }>(
    "lw_consume",
    sql`update identity_codes set used_at = ${iso(now)}::timestamptz
      where code_hash = ${hash}::text and used_at is null and expires_at > ${iso(now)}::timestamptz
      returning id, user_id`,
  );
  await db.prepared(
    "lw_audit",
    sql`insert into audit_log (at, action, target, ip, outcome, detail)
      values (${iso(now)}::timestamptz, 'code.verify', ${used ? String(used.id) : null}::text, ${p.ip}::text,
        ${used ? "success" : "failure"}::text, jsonb_build_object('origin', ${p.origin}::text))`,
  );
  return { allowed: true, verified: Boolean(used) };
}

export async function leastWorkServer(database: Database, appSecret: string) {
  const db = database.db;
  const app = Fastify({ logger: false, trustProxy: "127.0.0.1" });
  app.post<{ Body: { words?: unknown } }>("/api/verify", async (request, reply) => {
    const words = typeof request.body?.words === "string" ? request.body.words.trim().toLowerCase() : "";
    const { allowed, verified } = await leastWorkLookUp(db, appSecret, {
      words,
      ip: request.ip,
      origin: request.headers.origin ?? null,
    });
    if (!allowed) return reply.code(429).send({ error: "too many look-ups" });
    return verified ? { verified: true } : { verified: false };
  });
  return app;
}
