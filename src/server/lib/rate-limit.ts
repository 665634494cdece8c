import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/client";

/** `refused`: how many hits in a row this key has refused, this one included (0 when allowed). */
export type LimitResult = { allowed: boolean; retryAfterSeconds: number; refused: number };

/** What the hit statement returns: whether the hit counted, and the oldest hit still in the window. */
export type LimitRow = { allowed: boolean; oldest: Date | null; refused?: number };

const iso = (d: Date) => d.toISOString();

/**
 * Rolling-window limits kept in the database, so they hold across every server process.
 * Each key keeps the times of its hits still inside the window (at most `limit` of them),
 * updated in one atomic statement.
 */
export class RateLimiter {
  constructor(private readonly db: Db) {}

  /** Counts a hit if fewer than `limit` lie inside the window; otherwise refuses it. */
  async hit(key: string, limit: number, windowMs: number, now: Date): Promise<LimitResult> {
    const rows = await this.db.rows<LimitRow>(hitStatement(key, limit, windowMs, now));
    return toResult(rows[0], windowMs, now);
  }

  /** Whether a hit would be let through now, without counting one. */
  async peek(key: string, limit: number, windowMs: number, now: Date): Promise<LimitResult> {
    const cutoff = new Date(now.getTime() - windowMs);
    const rows = await this.db.rows<{ n: number; oldest: Date | null }>(sql`
      select count(*) as n, min(h) as oldest
      from rate_limits r, unnest(r.hits) h
      where r.key = ${key} and h > ${iso(cutoff)}::timestamptz`);
    const n = rows[0]?.n ?? 0;
    return toResult({ allowed: n < limit, oldest: rows[0]?.oldest ?? null }, windowMs, now);
  }

  /** Takes back one hit made at `at` (a counted attempt that turned out to be a success). */
  async release(key: string, at: Date): Promise<void> {
    await this.db.rows(sql`
      update rate_limits set hits = (
        select coalesce(array_agg(h order by h), '{}'::timestamptz[]) from (
          select h, row_number() over (partition by h) as n from unnest(rate_limits.hits) h
        ) s where not (h = ${iso(at)}::timestamptz and n = 1)
      ) where key = ${key}`);
  }

  /** Forgets every hit of a key. */
  async reset(key: string): Promise<void> {
    await this.db.rows(sql`delete from rate_limits where key = ${key}`);
  }

  /** Drops the keys whose every hit has left its window. */
  async deleteExpired(now: Date): Promise<void> {
    await this.db.rows(sql`delete from rate_limits where expires_at < ${iso(now)}::timestamptz`);
  }
}

/** The values of one hit: the key, its limit, and the times its statement compares with. */
export function hitValues(key: string, limit: number, windowMs: number, now: Date) {
  return {
    key,
    limit,
    now: iso(now),
    cutoff: iso(new Date(now.getTime() - windowMs)),
    until: iso(new Date(now.getTime() + windowMs)),
    firstAllowed: limit > 0,
    firstRefused: limit > 0 ? 0 : 1,
  };
}

type HitValues = ReturnType<typeof hitValues>;

/**
 * The single statement behind `hit`, exported so a hot path can embed it in a larger statement.
 * With `when` (a boolean SQL expression), the hit is counted only where it holds; otherwise the
 * statement does nothing and returns no row.
 */
export function hitStatement(key: string, limit: number, windowMs: number, now: Date, when?: SQL) {
  const v = hitValues(key, limit, windowMs, now);
  return hitSql(
    {
      key: sql`${v.key}`,
      limit: sql`${v.limit}`,
      now: sql`${v.now}`,
      cutoff: sql`${v.cutoff}`,
      until: sql`${v.until}`,
      firstAllowed: sql`${v.firstAllowed}`,
      firstRefused: sql`${v.firstRefused}`,
    },
    when,
  );
}

/**
 * `hitStatement` with placeholders named `${prefix}_key`, `${prefix}_limit`…, for a statement built once
 * (db/client `statement`); `setHitValues` gives their values for one hit.
 */
export function hitPlaceholders(prefix: string, when?: SQL) {
  const p = (name: keyof HitValues) => sql`${sql.placeholder(`${prefix}_${name}`)}`;
  return hitSql(
    {
      key: p("key"),
      limit: p("limit"),
      now: p("now"),
      cutoff: p("cutoff"),
      until: p("until"),
      firstAllowed: p("firstAllowed"),
      firstRefused: p("firstRefused"),
    },
    when,
  );
}

/** Sets the values of `hitPlaceholders(prefix)` for one hit in `values` (on the hot path: no copies). */
export function setHitValues(values: Record<string, unknown>, prefix: string, v: HitValues) {
  for (const name in v) values[`${prefix}_${name}`] = v[name as keyof HitValues];
  return values;
}

function hitSql(v: Record<keyof HitValues, SQL>, when?: SQL) {
  const live = sql`array(select h from unnest(r.hits) h where h > ${v.cutoff}::timestamptz order by h)`;
  const underLimit = sql`cardinality(${live}) < ${v.limit}`;
  const row = when
    ? sql`select ${v.key}::text, array[${v.now}::timestamptz], ${v.firstAllowed}::boolean, ${v.firstRefused}::int, ${v.until}::timestamptz
      where ${when}`
    : sql`values (${v.key}, array[${v.now}::timestamptz], ${v.firstAllowed}, ${v.firstRefused}, ${v.until}::timestamptz)`;
  return sql`
    insert into rate_limits as r (key, hits, allowed, refused, expires_at)
    ${row}
    on conflict (key) do update set
      allowed = ${underLimit},
      hits = case when ${underLimit} then ${live} || ${v.now}::timestamptz else ${live} end,
      refused = case when ${underLimit} then 0 else r.refused + 1 end,
      expires_at = case when ${underLimit} then ${v.until}::timestamptz else r.expires_at end
    returning allowed, hits[1] as oldest, refused`;
}

/** Seconds until the oldest hit in the window leaves it (at least 1): the `Retry-After` of a refusal. */
export function retryAfterSeconds(oldest: Date | null, windowMs: number, now: Date): number {
  const start = oldest ? oldest.getTime() : now.getTime();
  return Math.max(1, Math.ceil((start + windowMs - now.getTime()) / 1000));
}

/**
 * Whether a refusal is worth an audit row: the 1st, 10th, 100th… in a row of one key. A flood of
 * refused requests then adds a handful of rows (each with its count) instead of one per request.
 */
export function auditsRefusal(refused: number): boolean {
  return refused >= 1 && /^10*$/.test(String(refused));
}

/** The same rule inside SQL, for statements that audit their own refusals. */
export function auditsRefusalSql(refused: SQL) {
  return sql`(${refused} >= 1 and ${refused}::text ~ '^10*$')`;
}

function toResult(row: LimitRow | undefined, windowMs: number, now: Date): LimitResult {
  if (!row || row.allowed) return { allowed: true, retryAfterSeconds: 0, refused: 0 };
  return {
    allowed: false,
    retryAfterSeconds: retryAfterSeconds(row.oldest, windowMs, now),
    refused: Number(row.refused ?? 0),
  };
}
