import { type Db, type Executor, statement, statementFunction } from "@server/db/client";
import { organisationActiveSql } from "@server/features/organisations";
import { sessionIdSql, sessionLiveSql, userActiveSql } from "@server/features/users";
import { queueDeliveries } from "@server/features/webhooks";
import { AUDIT_ACTIONS, type AuditAction } from "@shared/audit-actions";
import { CALL_LIMITS, type CallDirection, type CheckStatus } from "@shared/calls";
import { type Placeholder, type SQL, sql } from "drizzle-orm";

/**
 * Every process hears on it each change of a call or check: `<organisationId>:<customerHash>:<callId>`
 * (ids and the keyed hash only, never the customerRef). The statements that change calls return these
 * events and how many webhook deliveries they queued; the service publishes them once the statement
 * committed (decision 010: no statement of a call takes the notification queue's lock).
 */
export const CALL_EVENTS_CHANNEL = "call_events";

const iso = (d: Date) => d.toISOString();
/** A placeholder of a statement built once (db/client `statement`), filled by name when it runs. */
const $ = (name: string) => sql.placeholder(name);
/** Values as a statement takes them: each a JS value (sent as a parameter) or a placeholder of a statement built once. */
type Bound<T> = { [K in keyof T]: T[K] | Placeholder };
/** A timestamp column as the ISO text the answers use. */
const isoSql = (column: SQL) => sql`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
/** The first word of a full name, as the customer sees the employee. */
const firstNameSql = (fullName: SQL) => sql`coalesce(split_part(btrim(${fullName}), ' ', 1), '')`;
/** The call event of a row `alias` with organisation_id, customer_hash and call_id (CALL_EVENTS_CHANNEL's payload). */
const eventSql = (alias: string) =>
  sql`${sql.raw(alias)}.organisation_id::text || ':' || ${sql.raw(alias)}.customer_hash || ':' || ${sql.raw(alias)}.call_id`;
/** The distinct call events of `from`'s rows, as a text[] (empty when none). */
const eventsSql = (from: SQL) => sql`(select coalesce(array_agg(distinct ${eventSql("n")}), '{}') from ${from} n)`;

/**
 * A statement that finds its calls by their id or their customer states "active" through these. Spelled as
 * a CASE, which the planner does not take apart, `ended_at is null` does not imply the predicate of a
 * partial index over active calls: stated plainly, a plan made while few calls were active (a prepared
 * statement's generic plan made on a young table, or statistics taken in a quiet hour) read the whole of
 * such an index (every active call) instead of the primary key or the customer's index, for every request
 * (bench/README.md, call-events). The index of active calls by employee (`calls_one_active_per_user_key`)
 * belongs to the statements that find a call by its employee, which state `ended_at is null` plainly; the
 * calls job's indexes to the job (`jobOpenSql`). The same goes for pending checks.
 */
const activeCallSql = (alias: string, at: SQL) =>
  sql`case when ${sql.raw(alias)}.ended_at is null then ${sql.raw(alias)}.ends_at > ${at} else false end`;
/** Not ended yet (endsAt aside), as `activeCallSql` spells it. */
const openCallSql = (alias: string) => sql`case when ${sql.raw(alias)}.ended_at is null then true else false end`;
/** A pending check (unexpired when `at` is given), as `activeCallSql` spells it. */
const pendingCheckSql = (alias: string, at?: SQL) =>
  sql`case when ${sql.raw(alias)}.status = 'pending' then ${at ? sql`${sql.raw(alias)}.expires_at > ${at}` : sql`true`} else false end`;
/**
 * Not ended, as the calls job states it (`c`): the indexes of calls due and of calls by session are partial on
 * exactly this, a conjunct no request states, so that only the job's plans read them (`activeCallSql`).
 */
export const jobOpenSql = sql`c.ended_at is null and c.end_reason is null`;

/** `endCalls`' choice of the call with this id. */
export const callByIdSql = (id: string | Placeholder) => sql`c.id = ${id}::text`;
/** `endCalls`' choice of the employee's active call (through the index of active calls by employee, `activeCallSql`). */
export const callOfEmployeeSql = (userId: number | Placeholder) =>
  sql`c.user_id = ${userId}::int and c.ended_at is null`;
/** The same for several employees. */
export const callsOfEmployeesSql = (userIds: number[]) =>
  sql`c.user_id = any(${`{${userIds.map(Number).join(",")}}`}::int[]) and c.ended_at is null`;

/** What a statement that changed calls has to publish after its commit: its call events, and whether it queued deliveries. */
export type CallWake = { events: string[]; queued: boolean };

/** Who did it, for the audit rows a statement writes itself. */
export type AuditBy = {
  actorId: number | null;
  actorEmail: string | null;
  ip: string | null;
  /** "dashboard", "api:<key prefix>", "component" or "system" */
  via: string;
};

/** The placeholders of an `AuditBy` in a statement built once, and their values. */
const BY: Bound<AuditBy> = { actorId: $("actor_id"), actorEmail: $("actor_email"), ip: $("ip"), via: $("via") };
const byValues = (by: AuditBy) => ({ actor_id: by.actorId, actor_email: by.actorEmail, ip: by.ip, via: by.via });

const auditInsert = (p: {
  at: string | Placeholder;
  by: Bound<AuditBy>;
  action: AuditAction;
  from: SQL;
  organisationId: SQL;
  target: SQL;
  detail: SQL;
}) => sql`
  insert into audit_log (at, actor_id, actor_email, organisation_id, action, target, ip, outcome, detail)
  select ${p.at}::timestamptz, ${p.by.actorId}::int, ${p.by.actorEmail}::text, ${p.organisationId}, ${p.action}::text,
    ${p.target}, ${p.by.ip}::text, 'success', jsonb_build_object('via', ${p.by.via}::text) || ${p.detail}
  from ${p.from}
  returning id`;

/** A changed row's call event and its statement's count of queued webhook deliveries (to publish after the commit). */
export type Published = { event: string; queued: number };

export type EndedCall = { id: string; user_id: number; organisation_id: number; end_reason: string } & Published;

/**
 * Ends the active calls `where` selects (an SQL condition over `c`, a row of calls), in one statement:
 * each gets its end (a call already past its `endsAt` ends then, as not renewed), its pending checks
 * expire, its `call.ended` delivery is queued with the next sequence and the end is audited. Each row
 * carries its call's event and the statement's count of queued deliveries, to publish after the commit.
 */
export async function endCalls(db: Db, p: { where: SQL; reason: string; now: Date; by: AuditBy }) {
  return db.prepared<EndedCall>("calls_end", endCallsSql({ ...p, now: iso(p.now) }));
}

const endCallsSql = (p: Parameters<typeof endCallsCtes>[0]) => sql`
  with ${endCallsCtes(p, "")}
  select e.id, e.user_id, e.organisation_id, e.end_reason, ${eventSql("e")} as event,
    (select count(*) from expired) as expired, (select count(*) from queued)::int as queued,
    (select count(*) from logged) as logged
  from ended e`;

const END_CALL = statement(
  "calls_end_one",
  endCallsSql({ where: callByIdSql($("id")), reason: $("reason"), now: $("now"), by: BY }),
);

/** `endCalls` of the call with this id, built once (the end of one call: a hot route's). */
export async function endCall(db: Db, p: { id: string; reason: string; now: Date; by: AuditBy }) {
  return db.run<EndedCall>(END_CALL, { id: p.id, reason: p.reason, now: iso(p.now), ...byValues(p.by) });
}

/**
 * `endCalls`' work as CTEs named `${prefix}ended` (the calls ended: id, user_id, organisation_id,
 * customer_hash, end_reason…), `${prefix}expired`, `${prefix}queued` and `${prefix}logged`, for a statement
 * that ends calls before it does more (`insertCall`).
 */
function endCallsCtes(
  p: { where: SQL; reason: string | Placeholder; now: string | Placeholder; by: Bound<AuditBy> },
  prefix: string,
) {
  const now = p.now;
  const ended = sql.raw(`${prefix}ended`);
  return sql`
    ${ended} as (
      update calls c set
        ended_at = case when c.ends_at <= ${now}::timestamptz then c.ends_at else ${now}::timestamptz end,
        end_reason = case
          when c.ends_at > ${now}::timestamptz then ${p.reason}::text
          when c.ends_at >= c.started_at + interval '${sql.raw(String(CALL_LIMITS.maxLengthMs / 1000))} seconds' then 'max-length'
          else 'not-renewed' end,
        sequence = c.sequence + 1
      where ${openCallSql("c")} and (${p.where})
      returning c.id, c.id as call_id, c.user_id, c.organisation_id, c.customer_hash, c.customer_sealed, c.ended_at,
        c.sequence, c.end_reason
    ),
    ${sql.raw(`${prefix}expired`)} as (
      update customer_checks k set status = 'expired'
      from ${ended} ended where k.call_id = ended.id and ${pendingCheckSql("k")}
      returning k.id
    ),
    ${sql.raw(`${prefix}queued`)} as (${queueDeliveries({
      type: "call.ended",
      now,
      from: sql`${ended} ended`,
      organisationId: sql`ended.organisation_id`,
      data: sql`jsonb_build_object('id', ended.id, 'customerRef', ended.customer_sealed,
        'endedAt', ${isoSql(sql`ended.ended_at`)}, 'sequence', ended.sequence)`,
      customerHash: sql`ended.customer_hash`,
      callId: sql`ended.id`,
    })}),
    ${sql.raw(`${prefix}logged`)} as (${auditInsert({
      at: now,
      by: p.by,
      action: AUDIT_ACTIONS.endCall,
      from: sql`${ended} ended`,
      organisationId: sql`ended.organisation_id`,
      target: sql`ended.id`,
      detail: sql`jsonb_build_object('reason', ended.end_reason)`,
    })})`;
}

/** Inside an erasure's transaction: the person's active call ends, its pending checks expire. */
export async function endCallsOfErased(tx: Executor, userId: number, now: Date) {
  await tx.execute(sql`
    with ended as (
      update calls set ended_at = ${iso(now)}::timestamptz, end_reason = 'erased', sequence = sequence + 1
      where user_id = ${userId}::int and ended_at is null
      returning id
    )
    update customer_checks k set status = 'expired' from ended where k.call_id = ended.id and ${pendingCheckSql("k")}`);
}

/** A call `c` started from a dashboard session that has since ended (signed out or expired) at `at`. */
export const callSignedOutSql = (at: SQL) =>
  sql`(c.session_id is not null and not ${sessionLiveSql(sql`c.session_id`, at)})`;

/** A call `c` whose employee is no longer active or whose organisation is deactivated (their owners' rules). */
export const callerDeactivatedSql = sql`not (${userActiveSql(sql`c.user_id`)} and ${organisationActiveSql(sql`c.organisation_id`)})`;

/** What the calls job has to do now, in one cheap read (the partial indexes hold only active calls and pending checks). */
export async function dueWork(db: Db, now: Date) {
  const at = iso(now);
  const [row] = await db.rows<{
    due: boolean;
    signed_out: boolean;
    deactivated: boolean;
    checks: boolean;
    next: Date | null;
  }>(sql`
    select
      least((select min(c.ends_at) from calls c where ${jobOpenSql}),
        (select min(k.expires_at) from customer_checks k where k.status = 'pending')) as next,
      exists (select 1 from calls c where ${jobOpenSql} and c.ends_at <= ${at}::timestamptz) as due,
      exists (select 1 from calls c where ${jobOpenSql} and ${callSignedOutSql(sql`${at}::timestamptz`)}) as signed_out,
      exists (select 1 from calls c where ${jobOpenSql} and ${callerDeactivatedSql}) as deactivated,
      exists (select 1 from customer_checks k where k.status = 'pending' and k.expires_at <= ${at}::timestamptz) as checks`);
  return row ?? { due: false, signed_out: false, deactivated: false, checks: false, next: null };
}

export type CallRow = {
  id: string;
  organisation_id: number;
  user_id: number;
  customer_hash: string;
  customer_sealed: string;
  direction: CallDirection;
  started_via: string;
  started_at: Date;
  ends_at: Date;
  ended_at: Date | null;
  full_name: string;
  email: string;
};

const CALL_COLUMNS = sql`c.id, c.organisation_id, c.user_id, c.customer_hash, c.customer_sealed, c.direction,
  c.started_via, c.started_at, c.ends_at, c.ended_at, u.full_name, u.email`;

const ACTIVE_CALL_OF = statement(
  "calls_active_of",
  sql`
  select ${CALL_COLUMNS} from calls c join users u on u.id = c.user_id
  where c.user_id = ${$("user_id")}::int and c.ended_at is null and c.ends_at > ${$("now")}::timestamptz`,
);

/** The user's active call (ended, or past its endsAt, is not active), or undefined. */
export async function activeCallOf(db: Db, userId: number, now: Date): Promise<CallRow | undefined> {
  const [row] = await db.run<CallRow>(ACTIVE_CALL_OF, { user_id: userId, now: iso(now) });
  return row;
}

/** An account as a dialler's start judges it (v1-service `employeeOfKey`), with its active call. */
export type EmployeeWithCall = {
  id: number;
  email: string;
  full_name: string;
  organisation_id: number | null;
  status: string;
  role: string;
  email_verified_at: Date | null;
  /** null when none */
  call: CallRow | null;
};

/** `employeeWithActiveCall`'s read, over the placeholders `email` and `now`. */
const employeeWithCallSql = sql`
  select u.id, u.email, u.full_name, u.organisation_id, u.status, u.role, u.email_verified_at,
    c.id as call_id, c.organisation_id as call_organisation_id, c.customer_hash as call_customer_hash,
    c.customer_sealed as call_customer_sealed, c.direction as call_direction, c.started_via as call_started_via,
    c.started_at as call_started_at, c.ends_at as call_ends_at
  from users u
    left join lateral (
      select * from calls c where c.user_id = u.id and c.ended_at is null and c.ends_at > ${$("now")}::timestamptz
      limit 1
    ) c on true
  where u.email = ${$("email")}::text`;
const EMPLOYEE_WITH_CALL = statement("calls_employee_with_call", employeeWithCallSql);

/** What `employeeWithCallSql` answers (as a row, or as JSON with its times as ISO text). */
type EmployeeWithCallRow = Omit<EmployeeWithCall, "call" | "email_verified_at"> & {
  email_verified_at: Date | string | null;
  call_id: string | null;
  call_organisation_id: number;
  call_customer_hash: string;
  call_customer_sealed: string;
  call_direction: CallDirection;
  call_started_via: string;
  call_started_at: Date | string;
  call_ends_at: Date | string;
};

const asDate = (value: Date | string) => (value instanceof Date ? value : new Date(value));
/** A statement's one row as one JSON value (null when none), for a keyed route's work (api-keys `keyedStatement`). */
const asJson = (select: SQL) => sql`(select row_to_json(r) from (${select}) r)`;

/**
 * A dialler's start's read of the employee (`employeeWithActiveCall`) as a keyed route's work: one JSON
 * value over the placeholders `email` (trimmed, in lower case) and `now`, read back by `employeeFromJson`.
 */
export const employeeJsonSql = asJson(employeeWithCallSql);

function employeeOf(row: EmployeeWithCallRow): EmployeeWithCall {
  const { id, email: address, full_name, organisation_id, status, role } = row;
  const call: CallRow | null =
    row.call_id === null
      ? null
      : {
          id: row.call_id,
          organisation_id: row.call_organisation_id,
          user_id: id,
          customer_hash: row.call_customer_hash,
          customer_sealed: row.call_customer_sealed,
          direction: row.call_direction,
          started_via: row.call_started_via,
          started_at: asDate(row.call_started_at),
          ends_at: asDate(row.call_ends_at),
          ended_at: null,
          full_name,
          email: address,
        };
  const email_verified_at = row.email_verified_at === null ? null : asDate(row.email_verified_at);
  return { id, email: address, full_name, organisation_id, status, role, email_verified_at, call };
}

/** `employeeJsonSql`'s value as `employeeWithActiveCall` answers it. */
export const employeeFromJson = (value: unknown): EmployeeWithCall | undefined =>
  value ? employeeOf(value as EmployeeWithCallRow) : undefined;

/**
 * The account with this e-mail (stored trimmed and in lower case) and its active call at `now`, in one
 * statement: what a dialler's start reads before it renews that call or starts another. Undefined when none.
 * The call is a lateral probe by the account's id: as a plain join, the planner was free to read the index of
 * active calls whole (`calls/plans.test.ts`).
 */
export async function employeeWithActiveCall(db: Db, email: string, now: Date): Promise<EmployeeWithCall | undefined> {
  const [row] = await db.run<EmployeeWithCallRow>(EMPLOYEE_WITH_CALL, employeeValues(email, now));
  return row && employeeOf(row);
}

/** The placeholders of `employeeWithActiveCall`'s read (and of `employeeJsonSql`). */
export const employeeValues = (email: string, now: Date) => ({ email: email.trim().toLowerCase(), now: iso(now) });

/** `findCall`'s read, over the placeholders `call_id` and `organisation_id`. */
const findCallSql = sql`
  select ${CALL_COLUMNS} from calls c join users u on u.id = c.user_id
  where c.id = ${$("call_id")}::text and c.organisation_id = ${$("organisation_id")}::int`;
const FIND_CALL = statement("calls_find", findCallSql);

/** `findCall` as a keyed route's work: one JSON value over `call_id` and `organisation_id`, read back by `callFromJson`. */
export const callJsonSql = asJson(findCallSql);

/** `callJsonSql`'s value as `findCall` answers it. */
export function callFromJson(value: unknown): CallRow | undefined {
  if (!value) return undefined;
  const row = value as Omit<CallRow, "started_at" | "ends_at" | "ended_at"> & {
    started_at: string;
    ends_at: string;
    ended_at: string | null;
  };
  return {
    ...row,
    started_at: new Date(row.started_at),
    ends_at: new Date(row.ends_at),
    ended_at: row.ended_at === null ? null : new Date(row.ended_at),
  };
}

/** A call of the organisation (any state), or undefined. */
export async function findCall(db: Db, organisationId: number, id: string): Promise<CallRow | undefined> {
  const [row] = await db.run<CallRow>(FIND_CALL, { call_id: id, organisation_id: organisationId });
  return row;
}

// The insert reads from the end of the employee's active call (`old_ended`), so that it comes after it: the
// one-active-call index then sees that call ended by this statement.
const INSERT_CALL = statement(
  "calls_insert",
  sql`
  with ${endCallsCtes({ where: callOfEmployeeSql($("user_id")), reason: "replaced", now: $("now"), by: BY }, "old_")},
  started as (
    insert into calls (id, organisation_id, user_id, customer_hash, customer_sealed, direction, started_via,
      session_id, started_at, renewed_at, ends_at, sequence)
    select ${$("id")}::text, ${$("organisation_id")}::int, ${$("user_id")}::int, ${$("customer_hash")}::text,
      ${$("customer_sealed")}::text, ${$("direction")}::text, ${$("started_via")}::text,
      ${sessionIdSql(sql`${$("session_hash")}::text`)}, ${$("now")}::timestamptz,
      ${$("now")}::timestamptz, ${$("ends_at")}::timestamptz, 1
    from (select count(*) from old_ended) ending
    returning *, id as call_id
  ),
  withUser as (
    select started.*, u.full_name, u.email from started join users u on u.id = started.user_id
  ),
  queued as (${queueDeliveries({
    type: "call.started",
    now: $("now"),
    from: sql`withUser`,
    organisationId: sql`withUser.organisation_id`,
    data: sql`jsonb_build_object('id', withUser.id, 'customerRef', withUser.customer_sealed,
      'direction', withUser.direction,
      'employee', jsonb_build_object('firstName', ${firstNameSql(sql`withUser.full_name`)},
        'fullName', withUser.full_name, 'email', withUser.email),
      'startedAt', ${isoSql(sql`withUser.started_at`)}, 'sequence', withUser.sequence)`,
    customerHash: sql`withUser.customer_hash`,
    callId: sql`withUser.id`,
  })}),
  logged as (${auditInsert({
    at: $("now"),
    by: BY,
    action: AUDIT_ACTIONS.startCall,
    from: sql`started`,
    organisationId: sql`started.organisation_id`,
    target: sql`started.id`,
    detail: sql`jsonb_build_object('direction', started.direction, 'employeeId', started.user_id)`,
  })})
  select w.id, w.organisation_id, w.user_id, w.customer_hash, w.customer_sealed, w.direction, w.started_via,
    w.started_at, w.ends_at, w.ended_at, w.full_name, w.email, ${eventSql("w")} as event,
    (select count(*) from queued)::int as queued, (select count(*) from logged) as logged,
    ${eventsSql(sql`old_ended`)} as ended_events, (select count(*) from old_queued)::int as ended_queued,
    (select count(*) from old_expired) as ended_expired, (select count(*) from old_logged) as ended_logged
  from withUser w`,
);

/**
 * Starts a call: the employee's active call ends first ("replaced", as `endCalls` ends it), then the new call
 * is inserted with its `call.started` delivery (sequence 1) and its audit row, in one statement. Throws the
 * unique violation when another start of the same employee committed a call meanwhile (the caller tries
 * again: the next statement ends that one). The ended call's events come back in `ended_events`.
 */
export async function insertCall(
  db: Db,
  p: {
    id: string;
    organisationId: number;
    userId: number;
    customerHash: string;
    customerSealed: string;
    direction: CallDirection;
    startedVia: string;
    sessionHash: string | null;
    now: Date;
    by: AuditBy;
  },
): Promise<CallRow & Published & { ended_events: string[]; ended_queued: number }> {
  const [row] = await db.run<CallRow & Published & { ended_events: string[]; ended_queued: number }>(INSERT_CALL, {
    id: p.id,
    organisation_id: p.organisationId,
    user_id: p.userId,
    customer_hash: p.customerHash,
    customer_sealed: p.customerSealed,
    direction: p.direction,
    started_via: p.startedVia,
    session_hash: p.sessionHash,
    now: iso(p.now),
    ends_at: iso(new Date(p.now.getTime() + CALL_LIMITS.renewWithinMs)),
    ...byValues(p.by),
  });
  if (!row) throw new Error("call insert returned no row");
  return row;
}

const RENEW_CALL = statement(
  "calls_renew",
  sql`
  update calls c set renewed_at = ${$("now")}::timestamptz,
    ends_at = least(${$("now")}::timestamptz + interval '${sql.raw(String(CALL_LIMITS.renewWithinMs / 1000))} seconds',
      c.started_at + interval '${sql.raw(String(CALL_LIMITS.maxLengthMs / 1000))} seconds')
  where c.id = ${$("id")}::text and c.user_id = ${$("user_id")}::int
    and ${activeCallSql("c", sql`${$("now")}::timestamptz`)}
  returning c.ends_at`,
);

/** Renews an active call: endsAt = min(now + 2 minutes, start + 60 minutes). The new endsAt, or undefined. */
export async function renewCall(db: Db, p: { id: string; userId: number; now: Date }) {
  const [row] = await db.run<{ ends_at: Date }>(RENEW_CALL, { id: p.id, user_id: p.userId, now: iso(p.now) });
  return row?.ends_at;
}

/** Marks a call disowned (the caller ends it next). Whether it was an active API-started call of the user. */
export async function markDisowned(db: Db, p: { id: string; userId: number; now: Date }) {
  const now = iso(p.now);
  const rows = await db.rows<{ id: string }>(sql`
    update calls c set disowned_at = ${now}::timestamptz
    where c.id = ${p.id}::text and c.user_id = ${p.userId}::int and ${activeCallSql("c", sql`${now}::timestamptz`)}
      and c.started_via like 'api:%'
    returning c.id`);
  return rows.length > 0;
}

// ---- customer checks ----

export type CheckRow = {
  id: string;
  call_id: string;
  organisation_id: number;
  customer_hash: string;
  status: CheckStatus;
  created_at: Date;
  expires_at: Date;
  answered_at: Date | null;
  answered_via: string | null;
};

/** The calls job: marks pending checks past their expiry expired: how many, and their calls' events to publish. */
export async function expireDueChecks(db: Db, now: Date) {
  const [row] = await db.prepared<{ n: number; events: string[] }>(
    "checks_expire",
    sql`
    with expired as (
      update customer_checks k set status = 'expired'
      where k.status = 'pending' and k.expires_at <= ${iso(now)}::timestamptz
      returning k.organisation_id, k.customer_hash, k.call_id
    )
    select (select count(*) from expired)::int as n, ${eventsSql(sql`expired`)} as events`,
  );
  return { n: row?.n ?? 0, wake: { events: row?.events ?? [], queued: false } satisfies CallWake };
}

const EXPIRE_AND_CONFLICT = statement(
  "checks_expire_conflict",
  sql`
  with expired as (
    update customer_checks k set status = 'expired'
    where k.organisation_id = ${$("organisation_id")}::int and k.customer_hash = ${$("customer_hash")}::text
      and k.status = 'pending' and k.expires_at <= ${$("now")}::timestamptz
    returning k.id, k.organisation_id, k.customer_hash, k.call_id
  )
  select (select case when k.status = 'pending' then 'pending' else 'denied' end
      from customer_checks k
      where ((k.organisation_id = ${$("organisation_id")}::int and k.customer_hash = ${$("customer_hash")}::text
          and k.status = 'pending')
        or (k.call_id = ${$("call_id")}::text and k.status = 'denied'))
        and not exists (select 1 from expired e where e.id = k.id)
      limit 1) as reason,
    ${eventsSql(sql`expired`)} as events`,
);

/**
 * Before a check is asked for, in one statement: the customer's pending checks past their expiry are marked
 * expired (their calls' events to publish), then why a check cannot be asked for: the customer's pending
 * check, or a denial on this call; else null. (The statement's reads see the table as it was before its
 * update, so a check it has just expired is left out by its id.)
 */
export async function expireAndConflict(
  db: Db,
  call: { id: string; organisation_id: number; customer_hash: string },
  now: Date,
) {
  const [row] = await db.run<{ reason: "pending" | "denied" | null; events: string[] }>(EXPIRE_AND_CONFLICT, {
    organisation_id: call.organisation_id,
    customer_hash: call.customer_hash,
    call_id: call.id,
    now: iso(now),
  });
  return { reason: row?.reason ?? null, wake: { events: row?.events ?? [], queued: false } satisfies CallWake };
}

const INSERT_CHECK = statement(
  "checks_insert",
  sql`
  with call as (
    update calls c set sequence = c.sequence + 1
    where c.id = ${$("call_id")}::text and ${activeCallSql("c", sql`${$("now")}::timestamptz`)}
    returning c.id, c.organisation_id, c.customer_hash, c.customer_sealed, c.direction, c.sequence, c.user_id
  ),
  asked as (
    insert into customer_checks (id, call_id, organisation_id, customer_hash, requested_by, requested_via, status,
      created_at, expires_at)
    select ${$("id")}::text, call.id, call.organisation_id, call.customer_hash, ${$("requested_by")}::int, ${$("via")}::text,
      'pending', ${$("now")}::timestamptz, ${$("expires_at")}::timestamptz
    from call
    returning *, call_id as call_id_
  ),
  ev as (
    select asked.id, asked.call_id, asked.organisation_id, asked.customer_hash, asked.expires_at, call.customer_sealed,
      call.direction, call.sequence, u.full_name
    from asked join call on call.id = asked.call_id join users u on u.id = call.user_id
  ),
  queued as (${queueDeliveries({
    type: "customer-check.requested",
    now: $("now"),
    from: sql`ev`,
    organisationId: sql`ev.organisation_id`,
    data: sql`jsonb_build_object('id', ev.id, 'callId', ev.call_id, 'customerRef', ev.customer_sealed,
      'direction', ev.direction, 'employee', jsonb_build_object('firstName', ${firstNameSql(sql`ev.full_name`)}),
      'expiresAt', ${isoSql(sql`ev.expires_at`)}, 'sequence', ev.sequence)`,
    customerHash: sql`ev.customer_hash`,
    callId: sql`ev.call_id`,
  })}),
  logged as (${auditInsert({
    at: $("now"),
    by: BY,
    action: AUDIT_ACTIONS.requestCheck,
    from: sql`asked`,
    organisationId: sql`asked.organisation_id`,
    target: sql`asked.call_id`,
    detail: sql`jsonb_build_object('checkId', asked.id)`,
  })})
  select a.id, a.call_id, a.organisation_id, a.customer_hash, a.status, a.created_at, a.expires_at, a.answered_at,
    a.answered_via, ${eventSql("a")} as event, (select count(*) from queued)::int as queued,
    (select count(*) from logged) as logged
  from asked a`,
);

/**
 * Inserts a pending check of an active call (its `customer-check.requested` delivery with the call's next
 * sequence, its audit row and the notification in the same statement). Undefined when the call is no longer
 * active; throws the unique violation when the customer already has a pending check.
 */
export async function insertCheck(
  db: Db,
  p: { id: string; callId: string; requestedBy: number | null; now: Date; by: AuditBy },
): Promise<(CheckRow & Published) | undefined> {
  const [row] = await db.run<CheckRow & Published>(INSERT_CHECK, {
    id: p.id,
    call_id: p.callId,
    requested_by: p.requestedBy,
    now: iso(p.now),
    expires_at: iso(new Date(p.now.getTime() + CALL_LIMITS.checkLifetimeMs)),
    ...byValues(p.by),
  });
  return row;
}

const CHECK_COLUMNS = sql`id, call_id, organisation_id, customer_hash, status, created_at, expires_at, answered_at,
  answered_via`;
const FIND_CHECK = statement(
  "checks_find",
  sql`select ${CHECK_COLUMNS} from customer_checks
  where id = ${$("id")}::text and organisation_id = ${$("organisation_id")}::int`,
);
const LATEST_CHECK_OF_CALL = statement(
  "checks_latest_of_call",
  sql`select ${CHECK_COLUMNS} from customer_checks
  where call_id = ${$("call_id")}::text order by created_at desc, id desc limit 1`,
);

export async function findCheck(db: Db, organisationId: number, id: string): Promise<CheckRow | undefined> {
  const [row] = await db.run<CheckRow>(FIND_CHECK, { id, organisation_id: organisationId });
  return row;
}

/** The call's newest check, or undefined. */
export async function latestCheckOfCall(db: Db, callId: string): Promise<CheckRow | undefined> {
  const [row] = await db.run<CheckRow>(LATEST_CHECK_OF_CALL, { call_id: callId });
  return row;
}

const ANSWER_CHECK = statement(
  "checks_answer",
  sql`
  with answered as (
    update customer_checks k set status = ${$("answer")}::text, answered_at = ${$("now")}::timestamptz,
      answered_via = ${$("answered_via")}::text
    from calls c
    where k.id = ${$("check_id")}::text and k.organisation_id = ${$("organisation_id")}::int
      and (${$("customer_hash")}::text is null or k.customer_hash = ${$("customer_hash")}::text)
      and ${pendingCheckSql("k", sql`${$("now")}::timestamptz`)}
      and c.id = k.call_id and ${activeCallSql("c", sql`${$("now")}::timestamptz`)}
    returning k.*
  ),
  call as (
    update calls c set sequence = c.sequence + 1 from answered
    where c.id = answered.call_id
    returning c.id, c.customer_sealed, c.sequence
  ),
  queued as (${queueDeliveries({
    type: "customer-check.answered",
    now: $("now"),
    from: sql`answered join call on call.id = answered.call_id`,
    organisationId: sql`answered.organisation_id`,
    data: sql`jsonb_build_object('id', answered.id, 'callId', answered.call_id, 'customerRef', call.customer_sealed,
      'status', answered.status, 'answeredAt', ${isoSql(sql`answered.answered_at`)},
      'answeredVia', answered.answered_via, 'sequence', call.sequence)`,
    customerHash: sql`answered.customer_hash`,
    callId: sql`answered.call_id`,
  })}),
  logged as (${auditInsert({
    at: $("now"),
    by: BY,
    action: AUDIT_ACTIONS.answerCheck,
    from: sql`answered`,
    organisationId: sql`answered.organisation_id`,
    target: sql`answered.call_id`,
    detail: sql`jsonb_build_object('checkId', answered.id, 'answer', answered.status)`,
  })})
  select a.id, a.call_id, a.organisation_id, a.customer_hash, a.status, a.created_at, a.expires_at, a.answered_at,
    a.answered_via, ${eventSql("a")} as event, (select count(*) from queued)::int as queued,
    (select count(*) from logged) as logged
  from answered a`,
);

/**
 * Answers a pending, unexpired check of an active call, once (the status condition makes exactly one of
 * concurrent answers win), with its `customer-check.answered` delivery, audit row and notification.
 * Undefined when it was not pending (or not that organisation's or customer's).
 */
export async function answerPendingCheck(
  db: Db,
  p: {
    organisationId: number;
    checkId: string;
    customerHash: string | null;
    answer: "confirmed" | "denied";
    via: string;
    now: Date;
    by: AuditBy;
  },
): Promise<(CheckRow & Published) | undefined> {
  const [row] = await db.run<CheckRow & Published>(ANSWER_CHECK, {
    answer: p.answer,
    now: iso(p.now),
    answered_via: p.via,
    check_id: p.checkId,
    organisation_id: p.organisationId,
    customer_hash: p.customerHash,
    ...byValues(p.by),
  });
  return row;
}

// ---- the customer's status ----

/** What `customerStatusSql` evaluates to (times as ISO text). */
export type CustomerStatusJson = {
  calling: { callId: string; fullName: string; startedAt: string }[];
  last: { startedAt: string; fullName: string } | null;
  check: {
    id: string;
    callId: string;
    direction: CallDirection;
    status: CheckStatus;
    fullName: string;
    expiresAt: string;
    answeredAt: string | null;
  } | null;
};

/**
 * The customer's status with one organisation at `now` as one JSON value, over the calls' and checks'
 * customer indexes: the active outbound calls (newest first; a call past its endsAt is ended, an inbound call
 * is never here), the newest outbound call kept, and the newest check of an active call (either direction).
 * A scalar expression over three SQL values (the organisation's id, the customer's hash and the time as ISO
 * text); statements read it through `customerStatusCalled`, a hot route inside its key's statement, built once
 * (api-keys `keyedStatement`).
 */
const customerStatusSql = (organisationId: SQL, customerHash: SQL, at: SQL) => {
  const customer = (alias: string) =>
    sql`${sql.raw(alias)}.organisation_id = ${organisationId}::int and ${sql.raw(alias)}.customer_hash = ${customerHash}::text`;
  return sql`json_build_object(
    'calling', (select coalesce(json_agg(json_build_object('callId', c.id, 'fullName', u.full_name,
        'startedAt', ${isoSql(sql`c.started_at`)}) order by c.started_at desc, c.id desc), '[]'::json)
      from calls c join users u on u.id = c.user_id
      where ${customer("c")} and c.direction = 'outbound' and ${activeCallSql("c", sql`${at}::timestamptz`)}),
    'last', (select json_build_object('startedAt', ${isoSql(sql`c.started_at`)}, 'fullName', u.full_name)
      from calls c join users u on u.id = c.user_id
      where ${customer("c")} and c.direction = 'outbound'
      order by c.started_at desc, c.id desc limit 1),
    'check', (select json_build_object('id', k.id, 'callId', k.call_id, 'direction', c.direction, 'status', k.status,
        'fullName', u.full_name, 'expiresAt', ${isoSql(sql`k.expires_at`)}, 'answeredAt', ${isoSql(sql`k.answered_at`)})
      from customer_checks k join calls c on c.id = k.call_id join users u on u.id = c.user_id
      where ${customer("k")} and ${activeCallSql("c", sql`${at}::timestamptz`)}
      order by k.created_at desc, k.id desc limit 1))`;
};

/** `customerStatusSql` of the placeholders `organisation_id`, `customer_hash` and `now`, as a function. */
const STATUS_OF = statement(
  "call_status_of",
  sql`select ${customerStatusSql(sql`${$("organisation_id")}`, sql`${$("customer_hash")}`, sql`${$("now")}`)}`,
  { returns: "json", scalar: true },
);

/**
 * The customer's status (`customerStatusSql`) over the placeholders `organisation_id`, `customer_hash` and
 * `now`, for a statement built once that lists `calls`: its three reads are a call that only a customer with a
 * call kept makes. Most customers who look have none (and then no check either: a check is its call's
 * customer's), and PostgreSQL sets up every sub-plan of a statement on every execution, a function's
 * statement only when it is called (bench/README.md, calls, 2026-11-29).
 */
export const customerStatusCalled = {
  sql: sql`case when exists (select from calls c
      where c.organisation_id = ${$("organisation_id")}::int and c.customer_hash = ${$("customer_hash")}::text)
    then ${statementFunction(STATUS_OF).callWith({})}
    else '{"calling": [], "last": null, "check": null}'::json end`,
  calls: [STATUS_OF],
};

const CUSTOMER_STATUS = statement("call_status_read", sql`select ${customerStatusCalled.sql} as status`, {
  calls: customerStatusCalled.calls,
});

/** The customer's status, alone in its statement. */
export async function customerStatus(db: Db, organisationId: number, customerHash: string, now: Date) {
  const rows = await db.run<{ status: CustomerStatusJson }>(CUSTOMER_STATUS, {
    organisation_id: organisationId,
    customer_hash: customerHash,
    now: iso(now),
  });
  return rows[0]?.status ?? { calling: [], last: null, check: null };
}

const COLLEAGUES_ON_CALL = statement(
  "calls_colleagues",
  sql`
  select count(distinct c.user_id)::int as n from calls c
  where c.organisation_id = ${$("organisation_id")}::int and c.customer_hash = ${$("customer_hash")}::text
    and c.user_id <> ${$("user_id")}::int and ${activeCallSql("c", sql`${$("now")}::timestamptz`)}`,
);

/** How many other employees have an active call with the same customer. */
export async function colleaguesOnCall(
  db: Db,
  call: { organisation_id: number; customer_hash: string; user_id: number },
  now: Date,
) {
  const [row] = await db.run<{ n: number }>(COLLEAGUES_ON_CALL, {
    organisation_id: call.organisation_id,
    customer_hash: call.customer_hash,
    user_id: call.user_id,
    now: iso(now),
  });
  return row?.n ?? 0;
}

// ---- the customer's export and erasure, the employee's export, retention ----

export async function customerCalls(db: Db, organisationId: number, customerHash: string) {
  return db.rows<{
    id: string;
    direction: CallDirection;
    started_at: Date;
    ended_at: Date | null;
    ends_at: Date;
    full_name: string;
    checks: Array<{
      id: string;
      status: CheckStatus;
      created_at: string;
      expires_at: string;
      answered_at: string | null;
      answered_via: string | null;
    }> | null;
  }>(sql`
    select c.id, c.direction, c.started_at, c.ended_at, c.ends_at, u.full_name,
      (select json_agg(json_build_object('id', k.id, 'status', k.status, 'created_at', ${isoSql(sql`k.created_at`)},
          'expires_at', ${isoSql(sql`k.expires_at`)},
          'answered_at', case when k.answered_at is null then null else ${isoSql(sql`k.answered_at`)} end,
          'answered_via', k.answered_via) order by k.created_at, k.id)
        from customer_checks k where k.call_id = c.id) as checks
    from calls c join users u on u.id = c.user_id
    where c.organisation_id = ${organisationId}::int and c.customer_hash = ${customerHash}::text
    order by c.started_at, c.id`);
}

/**
 * Erases one customer of one organisation: their calls (checks cascade), status tokens, and the webhook
 * deliveries that name them (pending and kept). How many calls.
 */
export async function eraseCustomer(db: Db, organisationId: number, customerHash: string) {
  const rows = await db.rows<{ n: number; events: string[] }>(sql`
    with deliveries as (
      delete from webhook_deliveries where organisation_id = ${organisationId}::int and customer_hash = ${customerHash}::text
      returning id
    ),
    tokens as (
      delete from call_status_tokens where organisation_id = ${organisationId}::int and customer_hash = ${customerHash}::text
      returning id
    ),
    gone as (
      delete from calls where organisation_id = ${organisationId}::int and customer_hash = ${customerHash}::text
      returning id, organisation_id, customer_hash, id as call_id
    )
    select (select count(*) from gone)::int as n, (select count(*) from deliveries)::int as deliveries,
      (select count(*) from tokens)::int as tokens, ${eventsSql(sql`(select * from gone limit 1)`)} as events`);
  return { n: rows[0]?.n ?? 0, wake: { events: rows[0]?.events ?? [], queued: false } satisfies CallWake };
}

/** The employee's own calls for their data export: no customer references. */
export async function callsOfUser(db: Db, userId: number) {
  return db.rows<{
    id: string;
    direction: CallDirection;
    started_at: Date;
    ended_at: Date | null;
    end_reason: string | null;
    started_via: string;
    checks: string[] | null;
  }>(sql`
    select c.id, c.direction, c.started_at, c.ended_at, c.end_reason, c.started_via,
      (select array_agg(k.status order by k.created_at, k.id) from customer_checks k where k.call_id = c.id) as checks
    from calls c where c.user_id = ${userId}::int order by c.started_at, c.id`);
}

/** Retention: calls (and their checks) started before `cutoff` and ended, with the deliveries that name them. */
export async function deleteCallsBefore(db: Db, cutoff: Date) {
  const rows = await db.rows<{ n: number }>(sql`
    with old as (
      select id from calls where started_at < ${iso(cutoff)}::timestamptz and ended_at is not null
    ),
    deliveries as (
      delete from webhook_deliveries d using old where d.call_id = old.id returning d.id
    ),
    gone as (delete from calls c using old where c.id = old.id returning c.id)
    select (select count(*) from gone)::int as n, (select count(*) from deliveries)::int as deliveries`);
  return rows[0]?.n ?? 0;
}
