import { type Db, type Executor, statement, statementFunction } from "@server/db/client";
import { identityCodes } from "@server/db/schema";
import { auditDetailSql } from "@server/features/audit";
import { organisationActiveSql } from "@server/features/organisations";
import { type SiteScope, siteAmongSql, websiteVerifiedSql } from "@server/features/sites";
import { queueDeliveries } from "@server/features/webhooks";
import { ipKeySql } from "@server/lib/ip";
import {
  auditsRefusalSql,
  hitCalled,
  hitPlaceholders,
  hitStatement,
  hitValues,
  type LimitRow,
} from "@server/lib/rate-limit";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { and, desc, eq, gt, isNull, lt, type Placeholder, type SQL, sql } from "drizzle-orm";

const iso = (d: Date) => d.toISOString();
/** A placeholder of a statement built once; `run` fills it. */
const $ = (name: string) => sql.placeholder(name);

type Limit = { key: string; limit: number; windowMs: number };

export type GenerateRow = LimitRow & { id: number | null; organisation_active: boolean };

/** Every process hears on it the id of each code verified. */
export const CODE_EVENTS_CHANNEL = "code_events";

/**
 * One statement for a code generation: counts the user's rate-limit hit, stores the code's hash
 * (taking over the row of an equal hash only if that code is used or expired), counts it on the user
 * and writes the audit entry. `id` is null when the limit refused it or the hash belongs to a live code.
 */
export async function insertCode(
  db: Db,
  p: {
    limit: Limit;
    userId: number;
    userEmail: string;
    organisationId: number | null;
    codeHash: string;
    now: Date;
    expiresAt: Date;
    ip: string;
    /** the code's language, audited with its generation */
    language: string;
    /** the call the code belongs to (the employee's active call), audited with its generation */
    callId?: string | null;
  },
): Promise<GenerateRow> {
  const now = iso(p.now);
  // a deactivated organisation's accounts generate nothing (the caller refuses on `organisation_active`)
  const ORGANISATION_ACTIVE = organisationActiveSql(sql`${p.organisationId}::int`);
  const rows = await db.prepared<GenerateRow>(
    "codes_generate",
    sql`
      with rl as (${hitStatement(p.limit.key, p.limit.limit, p.limit.windowMs, p.now)}),
      ins as (
        insert into identity_codes as ic (user_id, code_hash, created_at, expires_at)
        select ${p.userId}::int, ${p.codeHash}::text, ${now}::timestamptz, ${iso(p.expiresAt)}::timestamptz
        from rl where rl.allowed and ${ORGANISATION_ACTIVE}
        on conflict (code_hash) do update set
          -- a new id: the old code's status must never read as the new one's
          id = nextval(pg_get_serial_sequence('identity_codes', 'id')),
          user_id = excluded.user_id, created_at = excluded.created_at, expires_at = excluded.expires_at,
          used_at = null, verified_host = null
        where ic.used_at is not null or ic.expires_at <= excluded.created_at
        returning ic.id
      ),
      counted as (
        update users set codes_generated = codes_generated + 1
        where id = ${p.userId}::int and exists (select 1 from ins)
        returning id
      ),
      logged as (
        insert into audit_log (at, actor_id, actor_email, organisation_id, action, target, ip, outcome, detail)
        select ${now}::timestamptz, ${p.userId}::int, ${p.userEmail}::text, ${p.organisationId}::int, ${AUDIT_ACTIONS.generateCode}::text,
          ins.id::text, ${p.ip}::text, case when rl.allowed then 'success' else 'denied' end,
          jsonb_strip_nulls(jsonb_build_object('language', ${p.language}::text, 'callId', ${p.callId ?? null}::text))
            || case when rl.allowed then '{}'::jsonb else jsonb_build_object('reason', 'rate-limited', 'refused', rl.refused) end
        from rl left join ins on true
        where (not rl.allowed and ${auditsRefusalSql(sql`rl.refused`)}) or ins.id is not null
        returning id
      )
      select rl.allowed, rl.oldest, ins.id, ${ORGANISATION_ACTIVE} as organisation_active from rl left join ins on true`,
  );
  const row = rows[0];
  if (!row) throw new Error("code generation statement returned no row");
  return row;
}

export type LookUpRow = LimitRow & { candidate: boolean };

type LookUp = {
  /** The hashes the typed words may stand for (one per word list); none matches nothing. */
  codeHashes: readonly string[];
  now: Date;
  scope: SiteScope;
  origin: string | null;
  originHost: string | null;
  ip: string;
};

/** The scope as two parameters: whether any site will do, and the allowed hosts comma-joined. */
function scopeParams(scope: SiteScope) {
  // Only [a-z0-9.-] hosts reach the statement, so the comma-joined list cannot be split differently.
  const hosts = scope === "any" ? "" : scope.filter((h) => /^[a-z0-9.-]{1,253}$/.test(h)).join(",");
  return { anySite: scope === "any", hosts };
}

/**
 * The codes a comma-joined text of candidate hashes names (base64url hashes hold no comma), as a relation `ic`
 * (id, user_id, expires_at, used_at) to select from: each hash probes the unique index once, and the hashes
 * reach the plan through an InitPlan. Both for the prepared statements' plans (measured with
 * pg_stat_statements, bench verify-success, 2026-11-28): with `code_hash = any(<hashes>)` the planner expected
 * ten codes, so a generic plan made while the table was small read the whole table for a made-up code (a
 * failed look-up cost four times the database's CPU once the table had grown), and a custom plan, which knew
 * the real count, always looked cheaper, so the verification was planned afresh on every success (0.8 ms of
 * the database's CPU each). A probe of a unique key expects one row, and through the InitPlan every plan
 * expects the same number of hashes, so the generic plan is made once and kept.
 */
function codesNamedSql(hashes: Placeholder) {
  return sql`unnest((select string_to_array(${hashes}::text, ','))) as candidate(hash)
    cross join lateral (
      select id, user_id, expires_at, used_at from identity_codes where code_hash = candidate.hash limit 1
    ) ic`;
}

export type VerifyRow = {
  verified: boolean;
  /** the code's id (null when no code matched) */
  id: number | null;
  /** webhook deliveries queued: the service wakes the workers after the commit */
  queued: number;
  full_name: string | null;
  company_name: string | null;
  website: string | null;
};

/**
 * The judgement of the codes a look-up's candidate hashes name, as CTEs (`found`, `judged`, `c`) to begin a
 * statement's `with` list: each code with whether it is live, its owner active (not when the organisation
 * is deactivated, features/organisations) and, for a live code of an active owner, the site allowed (the
 * Origin's host or one of its parents is a verified site of the organisation): `usable`. `c` is the code the
 * look-up speaks of: a usable one if any, else a live one. Readings in several languages may match several
 * codes; when two are usable the look-up verifies neither (fails closed: which did the customer hear?).
 * Its values: `hashes`, `now`, `anySite`, `hosts`; `anySite` is read through an InitPlan, so that no custom
 * plan can drop the site check and look cheaper than the generic one (function-plans.test.ts).
 */
const JUDGED = sql`
    found as (select ic.id, ic.user_id, ic.expires_at, ic.used_at from ${codesNamedSql($("hashes"))}),
    judged as (
      select j.*, case when j.live and j.active
        then (select ${$("anySite")}::boolean) or ${siteAmongSql(sql`j.organisation_id`, sql`${$("hosts")}::text`)}
        else false end as usable
      from (
        select f.id, f.user_id, f.expires_at, f.used_at, u.organisation_id,
          f.used_at is null and f.expires_at > ${$("now")}::timestamptz as live,
          u.status = 'active' and ${organisationActiveSql(sql`u.organisation_id`)} as active
        from found f join users u on u.id = f.user_id
      ) j
    ),
    c as (select * from judged order by usable desc, live desc, id limit 1)`;

/**
 * Why a look-up of the judged codes (`JUDGED`, the code `c`) does not verify, or null when it may: `c` is
 * the one usable code.
 */
const NOT_VERIFIED_REASON = sql`case
          when c.id is null then 'unknown'
          when c.used_at is not null then 'used'
          when c.expires_at <= ${$("now")}::timestamptz then 'expired'
          when not c.active then 'owner-inactive'
          when not c.usable then 'wrong-site'
          when (select count(*) from judged where usable) > 1 then 'ambiguous'
        end`;

/**
 * The verification of one code the look-up judged usable (`code_id`), only ever run for one: uses it up if
 * it is still live (under concurrent look-ups the row lock and PostgreSQL's re-check of `used_at is null`
 * let exactly one of them succeed), counts it on its owner, and queues the `code.verified` webhook
 * deliveries (the outbox rows commit with it). It returns one row, `verified` false when another look-up
 * used the code first. The service wakes every process after the commit (`wakeAfterVerify`), which the
 * statement does not do: a commit with NOTIFY waits on the server's one notification-queue lock (decision 010).
 */
const CONSUME = statement(
  "codes_verify_consume",
  sql`
    with used as (
      update identity_codes ic set used_at = ${$("now")}::timestamptz, verified_host = ${$("originHost")}::text
      where ic.id = ${$("code_id")}::bigint and ic.used_at is null and ic.expires_at > ${$("now")}::timestamptz
      returning ic.id, ic.user_id
    ),
    owner as (
      select used.id, u.full_name, u.email, u.organisation_id, o.company_name,
        -- the website only when one of the organisation's verified sites is its host or a parent of it
        case when ${websiteVerifiedSql(sql`o.id`, sql`o.website_host`)} then o.website else '' end as website
      from used join users u on u.id = used.user_id
      left join organisations o on o.id = u.organisation_id
    ),
    counted as (
      update users set codes_verified = codes_verified + 1 from used where users.id = used.user_id
      returning users.id
    ),
    queued as (${queueDeliveries({
      type: "code.verified",
      now: $("now"),
      from: sql`owner c`,
      organisationId: sql`c.organisation_id`,
      data: sql`jsonb_build_object('codeId', c.id, 'employee', jsonb_build_object('fullName', c.full_name, 'email', c.email),
        'site', ${$("originHost")}::text, 'verifiedAt', ${$("now")}::text)`,
    })})
    select owner.id is not null as verified, owner.id, owner.full_name, owner.company_name, owner.website,
      (select count(*) from queued)::int as queued
    from (select 1) one left join owner on true`,
  { returns: "verified boolean, id bigint, full_name text, company_name text, website text, queued integer" },
);

/**
 * The verification as a function of the code judged usable: a statement calls it for that code only (a
 * lateral call behind a filter that no row passes otherwise), so that what it sets up (two updates, the
 * outbox insert, their indexes) costs a failed look-up nothing (bench/README.md, verify-success).
 */
const CONSUME_FUNCTION = statementFunction(CONSUME);
/** The audit `detail` members of every look-up of `result`'s row `r`: origin, reason and the code's owner. */
const lookUpMembers = (reason: SQL) => ({
  origin: sql`left(${$("origin")}::text, 255)`,
  reason,
  ownerId: sql`r.user_id`,
});
/** A look-up's audit `detail` when it did not verify: also how often a refused client was refused. */
const lookUpDetail = (reason: SQL) =>
  auditDetailSql(
    AUDIT_ACTIONS.verifyCode,
    { ...lookUpMembers(reason), refused: sql`case when not r.allowed then r.refused end` },
    // no null members: a failed look-up's row stays as small as a plain audit insert's
    { stripNulls: true },
  );

/** The audit entry of `result`'s row `r` (its code, `outcome` and `detail`) from `rows`, as the CTE `logged`. */
const loggedSql = (outcome: SQL, detail: SQL, rows: SQL) => sql`
    logged as (
      insert into audit_log (at, organisation_id, action, target, ip, outcome, detail)
      select ${$("now")}::timestamptz, r.organisation_id, ${AUDIT_ACTIONS.verifyCode}::text, r.id::text, ${$("ip")}::text,
        ${outcome}, ${detail}
      ${rows}
      returning id
    )`;

/**
 * The judgement of the codes the look-up's hashes name (`JUDGED`) and the verification of the usable one
 * (`CONSUME`, called for that code only), as one row: the code the look-up speaks of (id, owner,
 * organisation), why it does not verify (`reason`, null for the usable one; "rate-limited" when the
 * look-up's `allowed` is false, which verifies nothing) and the verification's row (`verified` null when
 * it did not run). As a function, a look-up calls it only when a hash names a code: a made-up code, almost
 * every look-up, pays neither its joins nor its plan (bench/README.md, verify, 2026-11-29).
 */
const JUDGE = statement(
  "codes_verify_judge",
  sql`
    with ${JUDGED},
    result as (
      select c.id, c.user_id, c.organisation_id,
        case when not ${$("allowed")}::boolean then 'rate-limited' else ${NOT_VERIFIED_REASON} end as reason
      from (select 1) one left join c on true
    ),
    consumed as (
      select v.* from result r cross join lateral ${CONSUME_FUNCTION.callWith({ code_id: sql.raw("r.id") })} v
      where r.reason is null
    )
    select r.id, r.user_id, r.organisation_id, r.reason, v.verified, v.full_name, v.company_name, v.website, v.queued
    from result r left join consumed v on true`,
  {
    returns:
      "id bigint, user_id integer, organisation_id integer, reason text, verified boolean, full_name text, company_name text, website text, queued integer",
    calls: [CONSUME],
  },
);
const JUDGE_FUNCTION = statementFunction(JUDGE);

/**
 * The audit entry of every look-up of the judged row `result` (allowed, refused, id, user_id,
 * organisation_id, reason, verified), as the CTE `logged`: a success's `detail` has every member; a refused
 * look-up is counted in its rate-limit row, and only the 1st, 10th, 100th… is written.
 */
const LOGGED = loggedSql(
  sql`case when not r.allowed then 'denied' when r.verified then 'success' else 'failure' end`,
  sql`case when r.verified then ${auditDetailSql(AUDIT_ACTIONS.verifyCode, lookUpMembers(sql`'verified'`))}
        else ${lookUpDetail(sql`coalesce(r.reason, 'used')`)} end`,
  sql`from result r where r.allowed or ${auditsRefusalSql(sql`r.refused`)}`,
);

/**
 * The verification on its own (`consumeCode`): the judgement of the candidate codes, the verification of
 * the usable one (`JUDGE`), and the audit entry (success, or why not). Its values are the ones `consumeCode` fills.
 */
const VERIFY = statement(
  "codes_verify",
  sql`
    with result as (
      select true as allowed, 0 as refused, j.* from ${JUDGE_FUNCTION.callWith({ allowed: sql`true` })} j
    ),
    ${LOGGED}
    select coalesce(r.verified, false) as verified, r.id, r.full_name, r.company_name, r.website,
      coalesce(r.queued, 0) as queued
    from result r`,
  {
    returns: "verified boolean, id bigint, full_name text, company_name text, website text, queued integer",
    calls: [CONSUME, JUDGE],
  },
);

/**
 * The rate-limit hits that begin both look-up statements (`lookUpAndVerify`, every look-up of the product,
 * and `lookUpCode`), as the CTE `rl` (allowed, oldest, refused). One text for every client: the /48 step is
 * a call that only an IPv6 client's look-up makes (a text of its own for IPv4 clients split the plan cache
 * in two, 2026-11-28).
 */
const CLIENT_HIT = hitPlaceholders("client");
// the IPv6 /48's budget counts only the look-ups its /64 let through: one flooding /64 does not use up its
// neighbours' budget; an IPv4 client has none (its key is ''), and its look-up does not call the hit
const NETWORK_HIT = hitCalled("network", sql`${$("network_key")}::text <> '' and (select allowed from client)`);
const RATE_LIMITED = sql`
    client as (${CLIENT_HIT.sql}),
    network as materialized (${NETWORK_HIT.sql}),
    rl as (
      select client.allowed and coalesce(network.allowed, true) as allowed,
        case when client.allowed then network.oldest else client.oldest end as oldest,
        case when client.allowed then coalesce(network.refused, 0) else client.refused end as refused
      from client left join network on true
    )`;

/**
 * The look-up with its verification (`lookUpAndVerify`): counts the hits, calls `JUDGE` only when one of the
 * hashes names a code (PostgreSQL sets up every node of a statement's plan on every execution, a function's
 * only when it is called: the judgement's joins and the verification are no part of a failed look-up's
 * plan), and audits every outcome.
 */
const LOOK_UP_AND_VERIFY = statement(
  "codes_lookup",
  sql`
    with ${RATE_LIMITED},
    found as (select ic.id from ${codesNamedSql($("hashes"))}),
    result as (
      select rl.allowed, rl.oldest, rl.refused, j.id, j.user_id, j.organisation_id,
        case when j.judged then j.reason when rl.allowed then 'unknown' else 'rate-limited' end as reason,
        j.verified, j.full_name, j.company_name, j.website, j.queued
      from rl left join lateral (
        -- a function scan behind the first code found: a made-up code's look-up never calls it (a filter of
        -- "where exists" here would be checked after the call, as a join filter)
        select true as judged, v.* from (select from found limit 1) f
          cross join lateral ${JUDGE_FUNCTION.callWith({ allowed: sql`rl.allowed` })} v
      ) j on true
    ),
    ${LOGGED}
    select allowed, oldest, reason is null as candidate,
      case when verified is not null then jsonb_build_object('verified', verified, 'id', id, 'full_name', full_name,
        'company_name', company_name, 'website', website, 'queued', queued) end as verification
    from result r`,
  {
    returns: "allowed boolean, oldest timestamptz, candidate boolean, verification jsonb",
    calls: [CONSUME, JUDGE, NETWORK_HIT.called],
  },
);

/**
 * The look-up without the verification (`lookUpCode`): counts the hits, judges the codes and audits a
 * look-up that cannot verify; a candidate is audited by its verification (`consumeCode`).
 */
const LOOK_UP = statement(
  "codes_candidates",
  sql`
    with ${RATE_LIMITED},
    ${JUDGED},
    result as (
      select rl.allowed, rl.oldest, rl.refused, c.id, c.user_id, c.organisation_id,
        case when not rl.allowed then 'rate-limited' else ${NOT_VERIFIED_REASON} end as reason
      from rl left join c on true
    ),
    ${loggedSql(
      sql`case when r.allowed then 'failure' else 'denied' end`,
      lookUpDetail(sql`r.reason`),
      // a refused look-up is counted in its rate-limit row, and only the 1st, 10th, 100th… is written here
      sql`from result r where r.reason is not null and (r.allowed or ${auditsRefusalSql(sql`r.refused`)})`,
    )}
    select allowed, oldest, reason is null as candidate from result r`,
  { returns: "allowed boolean, oldest timestamptz, candidate boolean", calls: [NETWORK_HIT.called] },
);

/** The statements a look-up calls as functions (its `calls`), each planned in its own right (function-plans.test.ts). */
export const LOOK_UP_CALLS = LOOK_UP_AND_VERIFY.calls ?? [];

/** The values of the verification's statement, which the look-up's passes on to its function. */
function verificationValues(p: LookUp): Record<string, unknown> {
  const { anySite, hosts } = scopeParams(p.scope);
  return {
    hashes: p.codeHashes.join(","),
    now: iso(p.now),
    anySite,
    hosts,
    ip: p.ip,
    origin: p.origin,
    originHost: p.originHost,
  };
}

/** The values of a look-up's statement, either form: the verification's and the rate-limit hits'. */
function lookUpValues(p: LookUp & { limit: Limit; networkLimit: Limit | null }) {
  const values = verificationValues(p);
  CLIENT_HIT.fill(values, hitValues(p.limit.key, p.limit.limit, p.limit.windowMs, p.now));
  // IPv4 clients have no network budget: the same statement, with a hit that never counts.
  const network = p.networkLimit ?? { key: "", limit: 1, windowMs: p.limit.windowMs };
  NETWORK_HIT.fill(values, hitValues(network.key, network.limit, network.windowMs, p.now));
  return values;
}

/** A look-up's row: `verification` is the verification's row for a candidate, null otherwise. */
export type LookUpAndVerifyRow = LookUpRow & { verification: VerifyRow | null };

/**
 * A look-up, one statement: counts the client's rate-limit hit, judges the codes the words may stand for
 * when one of them names a code (`JUDGE`), verifies the one usable code (`CONSUME`, called for that code
 * only) and audits the look-up once, whatever its outcome (origin, IP, outcome, reason, code id; never the
 * words). Almost every look-up is a failed one, of a code nobody issued: its plan is the hit, one index probe
 * per hash and the audit insert, with calls that do not run (bench/README.md, verify); a success pays one
 * round trip and one commit, and the verification sets up only what a success writes (bench verify-success).
 */
export async function lookUpAndVerify(
  db: Db,
  p: LookUp & { limit: Limit; networkLimit: Limit | null },
): Promise<LookUpAndVerifyRow> {
  const rows = await db.run<LookUpAndVerifyRow>(LOOK_UP_AND_VERIFY, lookUpValues(p));
  const row = rows[0];
  if (!row) throw new Error("look-up statement returned no row");
  return row;
}

/**
 * The look-up without the verification: counts the hit, audits a look-up that cannot verify, and says
 * whether the code is a candidate (the one usable code), changing nothing of it. With `consumeCode` after
 * it, the two steps `lookUpAndVerify` takes in one statement, apart (`candidates.test.ts` judges each step so).
 */
export async function lookUpCode(db: Db, p: LookUp & { limit: Limit; networkLimit: Limit | null }): Promise<LookUpRow> {
  const rows = await db.run<LookUpRow>(LOOK_UP, lookUpValues(p));
  const row = rows[0];
  if (!row) throw new Error("look-up statement returned no row");
  return row;
}

/**
 * The second step on its own, one statement, atomic on both engines: judges the codes the hashes name as
 * the look-up does, uses up the usable one (`CONSUME`) and writes the audit entry (success, or why not,
 * also when a concurrent look-up used the code first). A verification also queues the `code.verified`
 * webhook deliveries; the service wakes every process after the commit (`wakeAfterVerify`).
 */
export async function consumeCode(db: Db, p: LookUp): Promise<VerifyRow> {
  const rows = await db.run<VerifyRow>(VERIFY, verificationValues(p));
  const row = rows[0];
  if (!row) throw new Error("verify statement returned no row");
  return row;
}

/**
 * Whether more than `budget` look-ups failed in (from, to] across the platform: reads at most
 * budget + 1 of their audit rows (the index on action and time), so the check stays cheap under attack.
 */
export async function failedLookupsExceed(db: Db, from: Date, to: Date, budget: number): Promise<boolean> {
  const rows = await db.rows<{ n: number }>(sql`
    select count(*)::int as n from (
      select 1 from audit_log
      where action = ${AUDIT_ACTIONS.verifyCode} and outcome = 'failure'
        and at > ${iso(from)}::timestamptz and at <= ${iso(to)}::timestamptz
      limit ${budget + 1}::int
    ) f`);
  return (rows[0]?.n ?? 0) > budget;
}

/** Failed look-ups in (from, to] and from how many clients (IPv4 addresses, IPv6 /64s): for an alert. */
export async function failedLookupsBetween(db: Db, from: Date, to: Date) {
  const rows = await db.rows<{ failures: number; clients: number }>(sql`
    select count(*)::int as failures, count(distinct ${ipKeySql(sql`ip`)})::int as clients
    from audit_log
    where action = ${AUDIT_ACTIONS.verifyCode} and outcome = 'failure'
      and at > ${iso(from)}::timestamptz and at <= ${iso(to)}::timestamptz`);
  return rows[0] ?? { failures: 0, clients: 0 };
}

export type CodeStatusRow = { id: number; expires_at: Date; used_at: Date | null; verified_host: string | null };

/** A code of one user (null for anybody else's or an unknown id). */
export async function findCode(db: Db, id: number, userId: number): Promise<CodeStatusRow | null> {
  const rows = await db.prepared<CodeStatusRow>(
    "codes_status",
    sql`select id, expires_at, used_at, verified_host from identity_codes where id = ${id}::bigint and user_id = ${userId}::int`,
  );
  return rows[0] ?? null;
}

/** Deletes the codes that expired before `cutoff` (used or not). */
export async function deleteCodesExpiredBefore(db: Db, cutoff: Date) {
  await db.delete(identityCodes).where(lt(identityCodes.expiresAt, cutoff));
}

/** A user's codes as the data export shows them: ids, times and status, never the words or their hash. */
export async function codesOfUser(db: Db, userId: number) {
  return db
    .select({
      id: identityCodes.id,
      createdAt: identityCodes.createdAt,
      expiresAt: identityCodes.expiresAt,
      usedAt: identityCodes.usedAt,
      verifiedHost: identityCodes.verifiedHost,
    })
    .from(identityCodes)
    .where(eq(identityCodes.userId, userId))
    .orderBy(desc(identityCodes.createdAt));
}

/** Deletes every code of a user (erasure). */
export async function deleteCodesOf(db: Executor, userId: number) {
  await db.delete(identityCodes).where(eq(identityCodes.userId, userId));
}

/**
 * A code of any employee of one organisation, with its owner (an integration's view: GET /api/v1/codes/:id);
 * null for another organisation's code or an unknown id.
 */
export async function findOrganisationCode(
  db: Db,
  id: number,
  organisationId: number,
): Promise<(CodeStatusRow & { user_id: number }) | null> {
  const rows = await db.prepared<CodeStatusRow & { user_id: number }>(
    "codes_status_org",
    sql`select ic.id, ic.expires_at, ic.used_at, ic.verified_host, ic.user_id from identity_codes ic
      join users u on u.id = ic.user_id
      where ic.id = ${id}::bigint and u.organisation_id = ${organisationId}::int`,
  );
  return rows[0] ?? null;
}

/** Ends a user's live codes now (a reactivated account gets sign-in back, never the codes it had). */
export async function expireLiveCodesOf(db: Executor, userId: number, now: Date) {
  await db
    .update(identityCodes)
    .set({ expiresAt: now })
    .where(and(eq(identityCodes.userId, userId), isNull(identityCodes.usedAt), gt(identityCodes.expiresAt, now)));
}
