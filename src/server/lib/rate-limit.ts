import { type SQL, sql } from "drizzle-orm";
import { type Db, type Statement, statement, statementFunction } from "../db/client";

/** `refused`: how many hits in a row this key has refused, this one included (0 when allowed). */
export type LimitResult = { allowed: boolean; retryAfterSeconds: number; refused: number };

/** What the hit statement returns: whether the hit counted, and the oldest hit still in the window. */
export type LimitRow = { allowed: boolean; oldest: Date | null; refused?: number };

const iso = (d: Date) => d.toISOString();

/**
 * Rolling-window limits kept in the database, so they hold across every server process.
 * Each key keeps the times of its newest hits (at most `limit` of them), updated in one atomic statement.
 */
export class RateLimiter {
  constructor(private readonly db: Db) {}

  /** Counts a hit if fewer than `limit` lie inside the window; otherwise refuses it. */
  async hit(key: string, limit: number, windowMs: number, now: Date): Promise<LimitResult> {
    const values: Record<string, unknown> = {};
    HIT.fill(values, hitValues(key, limit, windowMs, now));
    const rows = await this.db.run<LimitRow>(HIT_STATEMENT, values);
    return toResult(rows[0], windowMs, now);
  }

  /**
   * Two limits in turn, in one statement (one round trip, one commit): the second hit is counted only when the
   * first was let through, as two `hit`s one after the other would. `second` is null when the first refused.
   */
  async hitBoth(first: Limit, second: Limit, now: Date): Promise<{ first: LimitResult; second: LimitResult | null }> {
    const values: Record<string, unknown> = {};
    BOTH.first.fill(values, hitValues(first.key, first.limit, first.windowMs, now));
    BOTH.second.fill(values, hitValues(second.key, second.limit, second.windowMs, now));
    const [row] = await this.db.run<BothRow>(BOTH.statement, values);
    const firstResult = toResult(
      row && { allowed: row.first_allowed, oldest: row.first_oldest, refused: row.first_refused },
      first.windowMs,
      now,
    );
    if (!firstResult.allowed) return { first: firstResult, second: null };
    const secondResult = toResult(
      row && { allowed: row.second_allowed, oldest: row.second_oldest, refused: row.second_refused },
      second.windowMs,
      now,
    );
    return { first: firstResult, second: secondResult };
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
type HitField = keyof HitValues;
const HIT_FIELDS: readonly HitField[] = ["key", "limit", "now", "cutoff", "until", "firstAllowed", "firstRefused"];

/**
 * The single statement behind `hit`, exported so a hot path can embed it in a larger statement.
 * With `when` (a boolean SQL expression), the hit is counted only where it holds; otherwise the
 * statement does nothing and returns no row.
 */
export function hitStatement(key: string, limit: number, windowMs: number, now: Date, when?: SQL) {
  const v = hitValues(key, limit, windowMs, now);
  return hitSql((field) => sql`${v[field]}`, when);
}

/**
 * `hitStatement` for a statement built once (db/client `statement`): `sql` holds placeholders named
 * `${prefix}_key`, `${prefix}_limit`…, and `fill` sets their values for one hit (on the hot path: no copies).
 */
export function hitPlaceholders(prefix: string, when?: SQL) {
  const name = (field: HitField) => `${prefix}_${field}`;
  const names = HIT_FIELDS.map((field) => [field, name(field)] as const);
  return {
    sql: hitSql((field) => sql`${sql.placeholder(name(field))}`, when),
    fill(values: Record<string, unknown>, v: HitValues) {
      for (const [field, name] of names) values[name] = v[field];
    },
  };
}

/**
 * `hitPlaceholders` behind a call: the hit as a PL/pgSQL function (db/client `statementFunction`) that a
 * statement calls only where `when` holds, checked once before the call (`when` may read the statement's
 * placeholders and its other CTEs, not a row). PostgreSQL sets up every node of a plan on every execution,
 * whether a row reaches it or not, and a function's statement only when it is called: a hit that most
 * executions skip then costs them no upsert's plan (bench/README.md, verify, 2026-11-29). `sql` is a
 * statement to put in a CTE (`materialized`: the call stays apart, behind `when`); the statement lists
 * `called` in its `calls`.
 */
export function hitCalled(prefix: string, when: SQL): { sql: SQL; fill: HitFill; called: Statement } {
  const hit = hitPlaceholders(prefix);
  const called = statement(`rate_limit_${prefix}`, hit.sql, {
    returns: "allowed boolean, oldest timestamptz, refused integer",
  });
  return {
    sql: sql`select h.* from ${statementFunction(called).callWith({})} h where ${when}`,
    fill: hit.fill,
    called,
  };
}
type HitFill = ReturnType<typeof hitPlaceholders>["fill"];

/**
 * The hit as an upsert. A key's row keeps its hits in time order, at most `limit` of them (the newest), so
 * whether one more fits is one comparison: fewer than `limit` kept, or the `limit`-th newest has left the
 * window. No hit is unpacked, filtered or sorted on the way (that cost grew with the count kept: a key with
 * 600 hits a minute spent most of its statement on it); a hit from a clock a little behind another process's
 * is put in its place. `oldest` is the hit that must leave the window before another fits.
 */
function hitSql(value: (field: HitField) => SQL, when?: SQL) {
  const v = Object.fromEntries(HIT_FIELDS.map((field) => [field, value(field)])) as Record<HitField, SQL>;
  const limit = sql`${v.limit}::int`;
  const now = sql`${v.now}::timestamptz`;
  const underLimit = sql`(cardinality(r.hits) < ${limit}
    or coalesce(r.hits[cardinality(r.hits) - ${limit} + 1] <= ${v.cutoff}::timestamptz, false))`;
  const kept = sql`r.hits[greatest(cardinality(r.hits) - ${limit} + 2, 1):]`;
  // the hit after every kept one not later than it (`width_bucket` counts them in the ordered array): at the
  // end, unless this process's clock is behind another's; no subquery, whose plan every hit would set up
  const before = sql`width_bucket(${now}, ${kept})`;
  const appended = sql`(${kept})[:${before}] || ${now} || (${kept})[${before} + 1:]`;
  const row = when
    ? sql`select ${v.key}::text, array[${now}], ${v.firstAllowed}::boolean, ${v.firstRefused}::int, ${v.until}::timestamptz
      where ${when}`
    : sql`values (${v.key}::text, array[${now}], ${v.firstAllowed}::boolean, ${v.firstRefused}::int, ${v.until}::timestamptz)`;
  return sql`
    insert into rate_limits as r (key, hits, allowed, refused, expires_at)
    ${row}
    on conflict (key) do update set
      allowed = ${underLimit},
      hits = case when ${underLimit} then ${appended} else r.hits end,
      refused = case when ${underLimit} then 0 else r.refused + 1 end,
      expires_at = case when ${underLimit} then ${v.until}::timestamptz else r.expires_at end
    returning allowed, hits[greatest(cardinality(hits) - ${limit} + 1, 1)] as oldest, refused`;
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

/** One limit: its key, how many hits its window holds, the window. */
export type Limit = { key: string; limit: number; windowMs: number };

type BothRow = {
  first_allowed: boolean;
  first_oldest: Date | null;
  first_refused: number;
  second_allowed: boolean;
  second_oldest: Date | null;
  second_refused: number;
};

/** `hitBoth`'s statement: the second hit's row is written only when the first hit was let through. */
const BOTH = (() => {
  const first = hitPlaceholders("first");
  const second = hitPlaceholders("second", sql`exists (select 1 from first where first.allowed)`);
  return {
    first,
    second,
    statement: statement(
      "rate_limit_hit_both",
      sql`with first as (${first.sql}), second as (${second.sql})
        select first.allowed as first_allowed, first.oldest as first_oldest, first.refused as first_refused,
          second.allowed as second_allowed, second.oldest as second_oldest, second.refused as second_refused
        from first left join second on true`,
      {
        returns: `first_allowed boolean, first_oldest timestamptz, first_refused integer,
          second_allowed boolean, second_oldest timestamptz, second_refused integer`,
      },
    ),
  };
})();

/**
 * `hit`'s statement, built once and prepared on each connection: as an unnamed statement it was planned on every
 * hit (pg_stat_statements, bench verify-success's issuing: 3,292 plans for 3,292 hits, about 0.1 ms each).
 */
const HIT = hitPlaceholders("hit");
const HIT_STATEMENT = statement("rate_limit_hit", HIT.sql, {
  returns: "allowed boolean, oldest timestamptz, refused integer",
});
