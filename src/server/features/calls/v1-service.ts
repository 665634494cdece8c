import type { Actor, Deps } from "@server/context";
import type { ApiKeyCaller } from "@server/features/api-keys";
import type { CallDirection } from "@shared/calls";
import { openCustomerRef } from "./customer";
import { callsErrors } from "./errors";
import * as repo from "./repository";
import * as calls from "./service";

/** How a key's call is audited: no account, the key's prefix as the actor. */
const keyBy = (actor: Actor, key: ApiKeyCaller): repo.AuditBy => ({
  actorId: null,
  actorEmail: null,
  ip: actor.ip,
  via: `api:${key.prefix}`,
});

/**
 * The employee read for a start (`repo.employeeWithActiveCall`, or the route's keyed read of it), when an active,
 * verified employee (or superuser) of the key's organisation, with their active call; 404 for anyone else.
 */
function employeeOfKey(key: ApiKeyCaller, employee: repo.EmployeeWithCall | undefined) {
  if (
    !employee ||
    employee.organisation_id !== key.organisationId ||
    employee.status !== "active" ||
    employee.role === "admin" ||
    !employee.email_verified_at
  )
    throw callsErrors.employeeNotFound();
  return employee;
}

/**
 * A call of the employee with the customer as the dialler (or a code with `customerRef`) starts it: the
 * same active call is renewed, else a new one starts (the employee's active call ends first).
 */
export async function startDiallerCall(
  deps: Deps,
  actor: Actor,
  key: ApiKeyCaller,
  input: { employeeEmail: string; customerRef: string; direction: CallDirection },
) {
  const read = await repo.employeeWithActiveCall(deps.db, input.employeeEmail, deps.clock.now());
  return startCallOf(deps, actor, key, employeeOfKey(key, read), input);
}

async function startCallOf(
  deps: Deps,
  actor: Actor,
  key: ApiKeyCaller,
  employee: repo.EmployeeWithCall,
  input: { customerRef: string; direction: CallDirection },
) {
  const { call, renewed } = await calls.startCall(
    deps,
    { organisationId: key.organisationId, by: keyBy(actor, key) },
    {
      employee: { id: employee.id },
      customerRef: input.customerRef,
      direction: input.direction,
      startedVia: `api:${key.prefix}`,
      sessionHash: null,
      renewSame: true,
      active: employee.call,
    },
  );
  return { call, renewed, employee: { fullName: employee.full_name, email: employee.email } };
}

/** `POST /api/v1/calls`, the employee read with the key (`repo.employeeJsonSql`). */
export async function startCall(
  deps: Deps,
  actor: Actor,
  key: ApiKeyCaller,
  read: repo.EmployeeWithCall | undefined,
  input: { customerRef: string; direction: CallDirection },
) {
  const { call, renewed, employee } = await startCallOf(deps, actor, key, employeeOfKey(key, read), input);
  return {
    renewed,
    answer: {
      id: call.id,
      customerRef: openCustomerRef(deps.config.appSecret, call.organisation_id, call.customer_sealed) ?? "",
      direction: call.direction,
      employee: { fullName: employee.fullName, email: employee.email },
      startedAt: call.started_at.toISOString(),
      endsAt: call.ends_at.toISOString(),
    },
  };
}

/** The call read with the key (`repo.callJsonSql`: one of the key's organisation), else 404. */
function organisationCall(row: repo.CallRow | undefined) {
  if (!row) throw callsErrors.callNotFound();
  return row;
}

/** `POST /api/v1/calls/:id/end` (an ended call stays ended: 200). */
export async function endCall(deps: Deps, actor: Actor, key: ApiKeyCaller, read: repo.CallRow | undefined) {
  const row = organisationCall(read);
  await calls.endCall(deps, { id: row.id, reason: "ended", now: deps.clock.now(), by: keyBy(actor, key) });
  return { ok: true as const };
}

/** `POST /api/v1/calls/:id/customer-check` */
export async function requestCheck(deps: Deps, actor: Actor, key: ApiKeyCaller, read: repo.CallRow | undefined) {
  const row = organisationCall(read);
  return calls.requestCheck(deps, { organisationId: key.organisationId, by: keyBy(actor, key) }, row, null);
}

/** `GET /api/v1/customer-checks/:id` */
export async function checkStatus(deps: Deps, key: ApiKeyCaller, id: string) {
  const row = await repo.findCheck(deps.db, key.organisationId, id);
  if (!row) throw callsErrors.checkNotFound();
  return calls.checkAnswerOf(row, deps.clock.now());
}

/** `POST /api/v1/customer-checks/:id` */
export function answerCheckByKey(
  deps: Deps,
  actor: Actor,
  key: ApiKeyCaller,
  id: string,
  answer: "confirmed" | "denied",
) {
  return calls.answerCheck(deps, {
    organisationId: key.organisationId,
    checkId: id,
    answer,
    via: `api:${key.prefix}`,
    ip: actor.ip,
  });
}

/** `POST /api/v1/customers/export` */
export function exportCustomer(deps: Deps, key: ApiKeyCaller, customerRef: string) {
  return calls.customerExport(deps, key.organisationId, customerRef);
}

/** `POST /api/v1/customers/erase` */
export function eraseCustomer(deps: Deps, actor: Actor, key: ApiKeyCaller, customerRef: string) {
  return calls.eraseCustomer(deps, { organisationId: key.organisationId, by: keyBy(actor, key) }, customerRef);
}
