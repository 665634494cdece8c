/**
 * What a naive server would do for a widget look-up, as the yardstick of the verify benchmark: three
 * plain statements, each the least it could be, with no helper of the product's.
 *   1. a rate-limit upsert: a fixed-window counter per client key (its own table, `bench_hits`);
 *   2. the atomic consume: one UPDATE of the code by its hash, if unused, unexpired and its owner active;
 *   3. the audit insert: one row in the product's `audit_log` (so it pays the same indexes).
 * `seedBench` makes the table and the codes both the product and the baseline search.
 */
import type { Database } from "@server/db/client";
import { organisations, users } from "@server/db/schema";
import { sql } from "drizzle-orm";

const iso = (d: Date) => d.toISOString();

export const naive = {
  hit: (key: string, limit: number, windowMs: number, now: Date) => sql`
    insert into bench_hits as h (key, n, window_end) values (${key}, 1, ${iso(new Date(now.getTime() + windowMs))}::timestamptz)
    on conflict (key) do update set
      n = case when h.window_end > ${iso(now)}::timestamptz then h.n + 1 else 1 end,
      window_end = case when h.window_end > ${iso(now)}::timestamptz then h.window_end else excluded.window_end end
    returning n <= ${limit}::int as allowed`,
  consume: (hash: string, now: Date) => sql`
    update identity_codes ic set used_at = ${iso(now)}::timestamptz
    from users u
    where ic.code_hash = ${hash}::text and ic.used_at is null and ic.expires_at > ${iso(now)}::timestamptz
      and u.id = ic.user_id and u.status = 'active'
    returning ic.id, ic.user_id, u.organisation_id, u.full_name`,
  audit: (p: {
    now: Date;
    organisationId: number | null;
    target: string | null;
    ip: string;
    outcome: string;
    origin: string | null;
  }) => sql`
    insert into audit_log (at, organisation_id, action, target, ip, outcome, detail)
    values (${iso(p.now)}::timestamptz, ${p.organisationId}::int, 'code.verify', ${p.target}::text, ${p.ip}::text,
      ${p.outcome}::text, jsonb_build_object('origin', ${p.origin}::text))`,
};

/** The baseline's table, one organisation with an owner, and 20,000 codes (half used) to search. */
export async function seedBench(database: Database) {
  const now = new Date();
  await database.db.execute(
    sql`create table if not exists bench_hits (key text primary key, n int not null, window_end timestamptz not null)`,
  );
  const [org] = await database.db
    .insert(organisations)
    .values({
      companyName: "Bench Ltd",
      domain: "bench.example",
      website: "https://bench.example",
      websiteHost: "bench.example",
      createdAt: now,
    })
    .returning();
  const [owner] = await database.db
    .insert(users)
    .values({
      email: "owner@bench.example",
      fullName: "Bench Owner",
      passwordHash: "x",
      role: "client",
      status: "active",
      organisationId: org?.id,
      createdAt: now,
    })
    .returning();
  await database.db.execute(sql`
    insert into identity_codes (user_id, code_hash, created_at, expires_at, used_at)
    select ${owner?.id}::int, md5(i::text), ${now.toISOString()}::timestamptz,
      ${new Date(now.getTime() + 3_600_000).toISOString()}::timestamptz,
      case when i % 2 = 0 then ${now.toISOString()}::timestamptz end
    from generate_series(1, 20000) i`);
  return { organisationId: org?.id ?? 0, ownerId: owner?.id ?? 0 };
}
