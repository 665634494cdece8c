import { type Actor, type Deps, publishAfterCommit, signedIn } from "@server/context";
import type { Db } from "@server/db/client";
import { keyNameByPrefix } from "@server/features/api-keys";
import type { Person } from "@server/features/feature";
import { organisationActive } from "@server/features/organisations";
import { wakeWorkersAfterCommit } from "@server/features/webhooks";
import { randomToken } from "@server/lib/crypto";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import {
  CALL_LIMITS,
  type CallAnswer,
  type CallDirection,
  type CheckAnswer,
  type CheckEvent,
  type CheckStatus,
  type CurrentCall,
  type CustomerExport,
  firstNameOf,
} from "@shared/calls";
import { sql } from "drizzle-orm";
import { customerHash, openCustomerRef, sealCustomerRef } from "./customer";
import { callsErrors } from "./errors";
import type { CallEvents, CallStreamState } from "./live";
import * as repo from "./repository";

const HOUR_MS = 60 * 60_000;
const MINUTE_MS = 60_000;

const newCallId = () => `call_${randomToken(16)}`;
const newCheckId = () => `chk_${randomToken(16)}`;

function isUniqueViolation(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if ((e as { code?: unknown }).code === "23505") return true;
  }
  return false;
}

/**
 * After a statement that changed calls committed (decision 010: none of them notifies itself): every process
 * hears of each call it changed (its streams look again), and the webhook workers wake when it queued deliveries.
 */
function publish(deps: Deps, wake: repo.CallWake) {
  publishAfterCommit(deps, repo.CALL_EVENTS_CHANNEL, [...new Set(wake.events)]);
  if (wake.queued) wakeWorkersAfterCommit(deps);
}
const publishRows = (deps: Deps, rows: repo.Published[]) =>
  publish(deps, { events: rows.map((r) => r.event), queued: rows.some((r) => r.queued > 0) });

/** `repo.endCalls`, published. */
export async function endCalls(deps: Deps, p: Parameters<typeof repo.endCalls>[1]) {
  const rows = await repo.endCalls(deps.db, p);
  publishRows(deps, rows);
  return rows;
}

/** `repo.endCall` (the call with this id), published. */
export async function endCall(deps: Deps, p: Parameters<typeof repo.endCall>[1]) {
  publishRows(deps, await repo.endCall(deps.db, p));
}

/** Who starts, ends or asks: an employee in the browser, or the organisation's key (`api:<prefix>`). */
export type CallActor = {
  organisationId: number;
  by: repo.AuditBy;
};

// ---- the customer's status (for the organisation's backend and the component) ----

export type CallStatus = {
  calling: Array<{ callId: string; employee: { firstName: string; fullName: string }; startedAt: Date }>;
  lastCallAt: Date | null;
  lastCaller: { firstName: string } | null;
  check: {
    id: string;
    callId: string;
    direction: CallDirection;
    status: CheckStatus;
    firstName: string;
    expiresAt: Date;
    answeredAt: Date | null;
  } | null;
};

/** A pending check past its expiry reads as expired, whether or not the job has marked it yet. */
const checkStatusAt = (row: { status: CheckStatus; expires_at: Date }, now: Date): CheckStatus =>
  row.status === "pending" && row.expires_at <= now ? "expired" : row.status;

/** The customer's status as `customerStatusSql` evaluates it (a hot route reads it inside its key's statement). */
export function toCallStatus(row: repo.CustomerStatusJson, now: Date): CallStatus {
  const check = row.check;
  return {
    calling: row.calling.map((c) => ({
      callId: c.callId,
      employee: { firstName: firstNameOf(c.fullName), fullName: c.fullName },
      startedAt: new Date(c.startedAt),
    })),
    lastCallAt: row.last ? new Date(row.last.startedAt) : null,
    lastCaller: row.last ? { firstName: firstNameOf(row.last.fullName) } : null,
    check: check
      ? {
          id: check.id,
          callId: check.callId,
          direction: check.direction,
          status: checkStatusAt({ status: check.status, expires_at: new Date(check.expiresAt) }, now),
          firstName: firstNameOf(check.fullName),
          expiresAt: new Date(check.expiresAt),
          answeredAt: check.answeredAt ? new Date(check.answeredAt) : null,
        }
      : null,
  };
}

/**
 * The customer's call status with the organisation at `now`, in one statement (the one read of it: the
 * organisation's backend, every component stream's look; repository `customerStatusSql`). Measured under
 * load, 2,000 reads over 20,000 calls: PGlite p50 0.31 ms / p99 1.4 ms against 2.3 / 54 ms for the three
 * statements it replaced; PostgreSQL p50 1.5 ms against 4.5 ms.
 */
export async function callStatusOf(
  db: Db,
  organisationId: number,
  customerHash: string,
  now: Date,
): Promise<CallStatus> {
  return toCallStatus(await repo.customerStatus(db, organisationId, customerHash, now), now);
}

// ---- calls ----

function callAnswer(appSecret: string, row: repo.CallRow): CallAnswer {
  return {
    id: row.id,
    customerRef: openCustomerRef(appSecret, row.organisation_id, row.customer_sealed) ?? "",
    direction: row.direction,
    startedAt: row.started_at.toISOString(),
    endsAt: row.ends_at.toISOString(),
  };
}

/** The organisation of a signed-in employee or superuser (403 otherwise, or while it is deactivated). */
export async function employeeOrganisation(deps: Deps, actor: Actor): Promise<number> {
  const user = signedIn(actor);
  if (user.organisationId === null || (user.role !== "client" && user.role !== "superuser"))
    throw callsErrors.notAnEmployee();
  if (!(await organisationActive(deps.db, user.organisationId))) throw callsErrors.organisationDeactivated();
  return user.organisationId;
}

/** How an employee's browser request is audited. */
export function employeeBy(actor: Actor): repo.AuditBy {
  const user = signedIn(actor);
  return { actorId: user.id, actorEmail: user.email, ip: actor.ip, via: "dashboard" };
}

/**
 * Starts a call of `employee` with the customer. With `renewSame` (the dialler's `POST /api/v1/calls`,
 * a code with `customerRef`), the employee's active call with the same customer and direction is renewed
 * instead (`renewed: true`). Otherwise the employee's active call ends first ("replaced"). Starts count
 * per employee (30 a rolling hour) and organisation (600 a minute), whoever starts them. Under concurrent
 * starts the partial unique index keeps one active call: the loser ends the winner's and tries again.
 */
export async function startCall(
  deps: Deps,
  who: CallActor,
  p: {
    employee: { id: number };
    customerRef: string;
    direction: CallDirection;
    startedVia: string;
    sessionHash: string | null;
    renewSame: boolean;
    /** with `renewSame`: the employee's active call (null: none) when it was read already, with the employee */
    active?: repo.CallRow | null;
  },
): Promise<{ call: repo.CallRow; renewed: boolean }> {
  const now = deps.clock.now();
  const hash = customerHash(deps.config.appSecret, who.organisationId, p.customerRef);
  if (p.renewSame) {
    const active = p.active === undefined ? await repo.activeCallOf(deps.db, p.employee.id, now) : p.active;
    if (active && active.customer_hash === hash && active.direction === p.direction) {
      const endsAt = await repo.renewCall(deps.db, { id: active.id, userId: p.employee.id, now });
      if (endsAt) return { call: { ...active, ends_at: endsAt }, renewed: true };
    }
  }
  const { first: perEmployee, second: perOrganisation } = await deps.limits.hitBoth(
    { key: `calls-start:user:${p.employee.id}`, limit: CALL_LIMITS.startsPerEmployeePerHour, windowMs: HOUR_MS },
    {
      key: `calls-start:org:${who.organisationId}`,
      limit: CALL_LIMITS.startsPerOrganisationPerMinute,
      windowMs: MINUTE_MS,
    },
    now,
  );
  if (!perEmployee.allowed) throw callsErrors.tooManyStarts(perEmployee.retryAfterSeconds);
  if (perOrganisation && !perOrganisation.allowed)
    throw callsErrors.tooManyOrganisationStarts(perOrganisation.retryAfterSeconds);
  const sealed = sealCustomerRef(deps.config.appSecret, who.organisationId, p.customerRef);
  // Concurrent starts for one employee: each ends the active call and inserts its own, in one statement; an
  // insert that meets another start's new call (the one-active-call index) fails whole, and the next try ends
  // that call and inserts. Each failed try is some other start's success, and every start took one of the
  // employee's hourly starts above, so no start fails more often than that limit (4 tries were too few: 6
  // concurrent starts through PgBouncer answered a 500).
  for (let attempt = 0; ; attempt++) {
    try {
      const call = await repo.insertCall(deps.db, {
        id: newCallId(),
        organisationId: who.organisationId,
        userId: p.employee.id,
        customerHash: hash,
        customerSealed: sealed,
        direction: p.direction,
        startedVia: p.startedVia,
        sessionHash: p.sessionHash,
        now,
        by: who.by,
      });
      publish(deps, { events: [...call.ended_events, call.event], queued: call.queued > 0 || call.ended_queued > 0 });
      return { call, renewed: false };
    } catch (err) {
      if (!isUniqueViolation(err) || attempt >= CALL_LIMITS.startsPerEmployeePerHour) throw err;
    }
  }
}

/** `POST /api/calls`: the signed-in employee's own call. */
export async function startOwnCall(
  deps: Deps,
  actor: Actor,
  sessionHash: string | null,
  body: { customerRef: string; direction: CallDirection },
): Promise<CallAnswer> {
  const organisationId = await employeeOrganisation(deps, actor);
  const user = signedIn(actor);
  const { call } = await startCall(
    deps,
    { organisationId, by: employeeBy(actor) },
    {
      employee: { id: user.id },
      customerRef: body.customerRef,
      direction: body.direction,
      startedVia: "dashboard",
      sessionHash,
      renewSame: false,
    },
  );
  return callAnswer(deps.config.appSecret, call);
}

/** `GET /api/calls/current` */
export async function currentCall(deps: Deps, actor: Actor): Promise<CurrentCall> {
  await employeeOrganisation(deps, actor);
  const row = await repo.activeCallOf(deps.db, signedIn(actor).id, deps.clock.now());
  if (!row) return null;
  return {
    ...callAnswer(deps.config.appSecret, row),
    startedVia: row.started_via === "dashboard" ? "dashboard" : "api",
  };
}

/** The caller's own call (any state), else 404. */
export async function ownCallOf(deps: Deps, actor: Actor, id: string): Promise<repo.CallRow> {
  const organisationId = await employeeOrganisation(deps, actor);
  const row = await repo.findCall(deps.db, organisationId, id);
  if (!row || row.user_id !== signedIn(actor).id) throw callsErrors.callNotFound();
  return row;
}

const isActive = (row: { ended_at: Date | null; ends_at: Date }, now: Date) => !row.ended_at && row.ends_at > now;

/** `POST /api/calls/:id/renew` */
export async function renewOwnCall(deps: Deps, actor: Actor, id: string): Promise<{ endsAt: string }> {
  const row = await ownCallOf(deps, actor, id);
  const endsAt = await repo.renewCall(deps.db, { id: row.id, userId: row.user_id, now: deps.clock.now() });
  if (!endsAt) throw callsErrors.callEnded();
  return { endsAt: endsAt.toISOString() };
}

/** `POST /api/calls/:id/end`: ends the caller's own call (an ended one stays ended). */
export async function endOwnCall(deps: Deps, actor: Actor, id: string) {
  const row = await ownCallOf(deps, actor, id);
  await endCall(deps, { id: row.id, reason: "ended", now: deps.clock.now(), by: employeeBy(actor) });
  return { ok: true as const };
}

/**
 * `POST /api/calls/:id/disown`: a call started through the API in the employee's name that they are not
 * on. It ends, the disowning is audited, and the alerts job raises `disowned-calls` (threshold 1).
 */
export async function disownCall(deps: Deps, actor: Actor, id: string) {
  const row = await ownCallOf(deps, actor, id);
  const now = deps.clock.now();
  if (!row.started_via.startsWith("api:") || !isActive(row, now)) throw callsErrors.notDisownable();
  if (!(await repo.markDisowned(deps.db, { id: row.id, userId: row.user_id, now }))) throw callsErrors.notDisownable();
  const by = employeeBy(actor);
  await deps.audit.record({
    action: AUDIT_ACTIONS.disownCall,
    outcome: "success",
    actorId: by.actorId,
    actorEmail: by.actorEmail,
    ip: by.ip,
    organisationId: row.organisation_id,
    target: row.id,
    detail: { via: by.via, startedVia: row.started_via },
  });
  await endCall(deps, { id: row.id, reason: "disowned", now, by });
  return { ok: true as const };
}

/** An active call of the organisation for a code: the employee's own (browser), else 404; ended: 409. */
export async function activeOwnCallId(deps: Deps, actor: Actor, id: string): Promise<string> {
  const row = await ownCallOf(deps, actor, id);
  if (!isActive(row, deps.clock.now())) throw callsErrors.callEnded();
  return row.id;
}

// ---- customer checks ----

/**
 * Asks the call's customer to confirm in their app: 409 while the customer has a pending check with the
 * organisation or the call has a denied check (checked before the limits), then at most 3 checks per
 * customer in 10 minutes and 3 a minute per employee (429).
 */
export async function requestCheck(
  deps: Deps,
  who: CallActor,
  call: repo.CallRow,
  requestedBy: number | null,
): Promise<{ id: string; status: "pending"; expiresAt: string }> {
  const now = deps.clock.now();
  if (!isActive(call, now)) throw callsErrors.callEnded();
  const { reason: conflict, wake } = await repo.expireAndConflict(deps.db, call, now);
  publish(deps, wake);
  if (conflict === "pending") throw callsErrors.checkPending();
  if (conflict === "denied") throw callsErrors.checkDenied();
  const { first: perCustomer, second: perEmployee } = await deps.limits.hitBoth(
    {
      key: `calls-check:customer:${call.organisation_id}:${call.customer_hash}`,
      limit: CALL_LIMITS.checksPerCustomerPer10Minutes,
      windowMs: 10 * MINUTE_MS,
    },
    { key: `calls-check:user:${call.user_id}`, limit: CALL_LIMITS.checksPerEmployeePerMinute, windowMs: MINUTE_MS },
    now,
  );
  if (!perCustomer.allowed) throw callsErrors.tooManyChecks(perCustomer.retryAfterSeconds);
  if (perEmployee && !perEmployee.allowed) throw callsErrors.tooManyEmployeeChecks(perEmployee.retryAfterSeconds);
  let row: Awaited<ReturnType<typeof repo.insertCheck>>;
  try {
    row = await repo.insertCheck(deps.db, { id: newCheckId(), callId: call.id, requestedBy, now, by: who.by });
  } catch (err) {
    if (isUniqueViolation(err)) throw callsErrors.checkPending();
    throw err;
  }
  if (!row) throw callsErrors.callEnded();
  publishRows(deps, [row]);
  return { id: row.id, status: "pending", expiresAt: row.expires_at.toISOString() };
}

/** `POST /api/calls/:id/customer-check` */
export async function requestOwnCheck(deps: Deps, actor: Actor, id: string) {
  const row = await ownCallOf(deps, actor, id);
  return requestCheck(deps, { organisationId: row.organisation_id, by: employeeBy(actor) }, row, row.user_id);
}

/**
 * Answers a customer's pending check, once: `confirmed` or `denied`, by the component (`via:
 * "component"`, with the token's customer) or the organisation's backend (`via: "api:<prefix>"`). 404
 * when it is not that organisation's (or that customer's) check; 409 when it is no longer pending
 * (answered, expired, or its call ended). A denial is audited and counted by the alerts job.
 */
export async function answerCheck(
  deps: Deps,
  p: {
    organisationId: number;
    checkId: string;
    customerHash?: string;
    answer: "confirmed" | "denied";
    via: "component" | `api:${string}`;
    /** the client's address (the component's request, the key's call) */
    ip?: string | null;
  },
): Promise<{ id: string; status: CheckStatus }> {
  const now = deps.clock.now();
  const row = await repo.answerPendingCheck(deps.db, {
    organisationId: p.organisationId,
    checkId: p.checkId,
    customerHash: p.customerHash ?? null,
    answer: p.answer,
    via: p.via,
    now,
    by: { actorId: null, actorEmail: null, ip: p.ip ?? null, via: p.via },
  });
  if (row) {
    publishRows(deps, [row]);
    return { id: row.id, status: row.status };
  }
  const found = await repo.findCheck(deps.db, p.organisationId, p.checkId);
  if (!found || (p.customerHash !== undefined && found.customer_hash !== p.customerHash))
    throw callsErrors.checkNotFound();
  throw callsErrors.checkAnswered();
}

export function checkAnswerOf(row: repo.CheckRow, now: Date): CheckAnswer {
  return {
    id: row.id,
    callId: row.call_id,
    status: checkStatusAt(row, now),
    expiresAt: row.expires_at.toISOString(),
    answeredAt: row.answered_at?.toISOString() ?? null,
    answeredVia: row.answered_via,
  };
}

/** The `check` event of a call's stream: its newest check, or null. */
export async function callCheckEvent(deps: Deps, callId: string): Promise<CheckEvent | null> {
  const row = await repo.latestCheckOfCall(deps.db, callId);
  if (!row) return null;
  const a = checkAnswerOf(row, deps.clock.now());
  const prefix = a.answeredVia?.startsWith("api:") ? a.answeredVia.slice(4) : null;
  const keyName = prefix ? await keyNameByPrefix(deps.db, row.organisation_id, prefix) : null;
  return { id: a.id, status: a.status, answeredAt: a.answeredAt, answeredVia: a.answeredVia, keyName };
}

/** What the employee's call stream shows: null once the call is gone (erased). */
export async function callStreamState(
  deps: Deps,
  call: { id: string; organisation_id: number; customer_hash: string; user_id: number },
): Promise<CallStreamState | null> {
  const now = deps.clock.now();
  const [row, check, colleagues] = await Promise.all([
    repo.findCall(deps.db, call.organisation_id, call.id),
    callCheckEvent(deps, call.id),
    repo.colleaguesOnCall(deps.db, call, now),
  ]);
  if (!row) return null;
  return { ended: !isActive(row, now), check, colleagues };
}

// ---- the job, deactivation, the customer's and the employee's data ----

/**
 * The calls job (every second in every process): ends calls past their endsAt (2 minutes without renewal,
 * 60 minutes at most), calls whose session ended, calls of employees no longer active or of deactivated
 * organisations; and expires checks past their 2 minutes. Each end and expiry is told to every process.
 */
export async function endDueCalls(deps: Deps, callEvents: CallEvents) {
  const now = deps.clock.now();
  // Between changes nothing is due before the earliest endsAt or check expiry: the job reads the database
  // only then, after any call event (of any process), and every few seconds for sessions and deactivations.
  const state = jobStates.get(deps) ?? { next: 0, generation: -1, lastFull: 0 };
  jobStates.set(deps, state);
  const full = Date.now() - state.lastFull >= FULL_LOOK_EVERY_MS;
  if (!full && now.getTime() < state.next && callEvents.generation === state.generation) return 0;
  state.generation = callEvents.generation;
  if (full) state.lastFull = Date.now();
  const work = await repo.dueWork(deps.db, now);
  state.next = work.next ? work.next.getTime() : Number.POSITIVE_INFINITY;
  const system: repo.AuditBy = { actorId: null, actorEmail: null, ip: null, via: "system" };
  let done = 0;
  if (work.due) {
    const ended = await endCalls(deps, {
      where: sql`${repo.jobOpenSql} and c.ends_at <= ${now.toISOString()}::timestamptz`,
      reason: "not-renewed",
      now,
      by: system,
    });
    done += ended.length;
  }
  if (work.signed_out) {
    const ended = await endCalls(deps, {
      where: sql`${repo.jobOpenSql} and ${repo.callSignedOutSql(sql`${now.toISOString()}::timestamptz`)}`,
      reason: "session-ended",
      now,
      by: system,
    });
    done += ended.length;
  }
  if (work.deactivated) {
    const ended = await endCalls(deps, {
      where: sql`${repo.jobOpenSql} and ${repo.callerDeactivatedSql}`,
      reason: "deactivated",
      now,
      by: system,
    });
    done += ended.length;
  }
  if (work.checks) {
    const expired = await repo.expireDueChecks(deps.db, now);
    publish(deps, expired.wake);
    done += expired.n;
  }
  return done;
}

/** The calls job's memory per process (deps): when it must next look. */
const jobStates = new WeakMap<Deps, { next: number; generation: number; lastFull: number }>();
/** Ended sessions and deactivations are looked for this often (real time). */
const FULL_LOOK_EVERY_MS = 5_000;

/** After accounts were deactivated: their calls end at once (their checks expire). */
export async function endCallsOfDeactivated(deps: Deps, userIds: number[]) {
  if (userIds.length === 0) return;
  await endCalls(deps, {
    where: repo.callsOfEmployeesSql(userIds),
    reason: "deactivated",
    now: deps.clock.now(),
    by: { actorId: null, actorEmail: null, ip: null, via: "system" },
  });
}

/** `POST /api/v1/customers/export`: every call, check and answer kept for the customer. */
export async function customerExport(deps: Deps, organisationId: number, customerRef: string): Promise<CustomerExport> {
  const hash = customerHash(deps.config.appSecret, organisationId, customerRef);
  const now = deps.clock.now();
  const rows = await repo.customerCalls(deps.db, organisationId, hash);
  return {
    calls: rows.map((r) => ({
      id: r.id,
      direction: r.direction,
      startedAt: r.started_at.toISOString(),
      endedAt: r.ended_at?.toISOString() ?? (r.ends_at <= now ? r.ends_at.toISOString() : null),
      employee: { fullName: r.full_name },
      checks: (r.checks ?? []).map((k) => ({
        id: k.id,
        status: k.status === "pending" && Date.parse(k.expires_at) <= now.getTime() ? "expired" : k.status,
        createdAt: k.created_at,
        expiresAt: k.expires_at,
        answeredAt: k.answered_at,
        answeredVia: k.answered_via,
      })),
    })),
  };
}

/** `POST /api/v1/customers/erase`: the customer's calls, checks, tokens and the deliveries naming them. */
export async function eraseCustomer(deps: Deps, who: CallActor, customerRef: string) {
  const hash = customerHash(deps.config.appSecret, who.organisationId, customerRef);
  const { n: calls, wake } = await repo.eraseCustomer(deps.db, who.organisationId, hash);
  publish(deps, wake);
  await deps.audit.record({
    action: AUDIT_ACTIONS.eraseCustomer,
    outcome: "success",
    actorId: who.by.actorId,
    actorEmail: who.by.actorEmail,
    ip: who.by.ip,
    organisationId: who.organisationId,
    detail: { via: who.by.via, calls },
  });
  return { calls };
}

/** The employee's data export: their calls (ids, times, directions, check statuses), no customer references. */
export async function exportCallsOf(deps: Deps, person: Person) {
  const rows = await repo.callsOfUser(deps.db, person.id);
  return rows.map((r) => ({
    id: r.id,
    direction: r.direction,
    startedAt: r.started_at.toISOString(),
    endedAt: r.ended_at?.toISOString() ?? null,
    endReason: r.end_reason,
    startedThroughApi: r.started_via.startsWith("api:"),
    checks: r.checks ?? [],
  }));
}

/** Retention: calls older than RETENTION_CALLS_DAYS (with their checks and the deliveries naming them). */
export async function applyCallsRetention(deps: Deps) {
  const cutoff = new Date(deps.clock.now().getTime() - deps.config.retentionCallsDays * 24 * HOUR_MS);
  return repo.deleteCallsBefore(deps.db, cutoff);
}
