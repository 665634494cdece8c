import { type Actor, auditActor, type Deps } from "@server/context";
import { organisationActivity } from "@server/features/activity";
import { type ApiKeyCaller, apiKeysErrors } from "@server/features/api-keys";
import { auditFeed } from "@server/features/audit";
import { startDiallerCall } from "@server/features/calls";
import { generateWords, organisationCodeStatus } from "@server/features/codes";
import { reportsFeed } from "@server/features/reports";
import { findUserByEmail } from "@server/features/users";
import type { FeedQuery } from "@shared/api-keys";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { DEFAULT_LANGUAGE, type Language } from "@shared/languages";
import { v1Errors } from "./errors";

/** How an audit event names the key that made a call. */
const keyDetail = (key: ApiKeyCaller) => ({ apiKey: { id: key.id, name: key.name, prefix: key.prefix } });

/**
 * `POST /api/v1/codes`: a code issued for an active employee of the key's organisation, through the codes
 * feature's own generation: the employee's 3-a-minute limit and its audit event apply, and an event
 * `api.issue-code` names the key. Anyone else (unknown, inactive, e-mail never verified, another
 * organisation's, an admin) is 404.
 */
export async function issueCode(
  deps: Deps,
  actor: Actor,
  key: ApiKeyCaller,
  input: { employeeEmail: string; language?: Language | undefined; customerRef?: string | undefined },
) {
  // a code that belongs to a call also starts (or renews) that call: the key needs calls:write too
  if (input.customerRef !== undefined && !key.scopes.includes("calls:write"))
    throw apiKeysErrors.missingScope("calls:write");
  const employee = await findUserByEmail(deps.db, input.employeeEmail);
  const audit = { ...auditActor(actor), action: AUDIT_ACTIONS.apiIssueCode, organisationId: key.organisationId };
  if (
    !employee ||
    employee.organisationId !== key.organisationId ||
    employee.status !== "active" ||
    employee.role === "admin" ||
    // an address nobody proved (issue 32 L8): no code speaks for it, as for an unknown employee
    !employee.emailVerifiedAt
  ) {
    await deps.audit.record({
      ...audit,
      outcome: "failure",
      detail: { ...keyDetail(key), reason: "no such employee" },
    });
    throw v1Errors.employeeNotFound();
  }
  const asEmployee: Actor = {
    ...actor,
    user: {
      id: employee.id,
      email: employee.email,
      fullName: employee.fullName,
      role: employee.role,
      status: employee.status,
      organisationId: employee.organisationId,
    },
  };
  // With customerRef: the employee's outbound call with that customer, started if needed.
  const call =
    input.customerRef === undefined
      ? null
      : (
          await startDiallerCall(deps, actor, key, {
            employeeEmail: employee.email,
            customerRef: input.customerRef,
            direction: "outbound",
          })
        ).call;
  // A refusal (the employee's 3-a-minute limit) is audited by the generation itself, sparsely.
  const code = await generateWords(deps, asEmployee, {
    language: input.language ?? DEFAULT_LANGUAGE,
    callId: call?.id ?? null,
  });
  await deps.audit.record({
    ...audit,
    outcome: "success",
    target: String(code.id),
    detail: { ...keyDetail(key), employeeId: employee.id, ...(call ? { callId: call.id } : {}) },
  });
  return {
    id: code.id,
    words: code.words,
    expiresAt: code.expiresAt,
    language: code.language,
    employee: { fullName: employee.fullName, email: employee.email },
  };
}

/** `GET /api/v1/codes/:id`: a code of the key's organisation (404 for any other). */
export async function codeStatus(deps: Deps, key: ApiKeyCaller, input: { id: number }) {
  return organisationCodeStatus(deps, { id: input.id, organisationId: key.organisationId });
}

/** `GET /api/v1/audit`: the organisation's audit events after the cursor. */
export function audit(deps: Deps, key: ApiKeyCaller, query: FeedQuery) {
  return auditFeed(deps, { organisationId: key.organisationId, after: Number(query.after ?? 0), limit: query.limit });
}

/** `GET /api/v1/reports`: the organisation's reported calls after the cursor. */
export function reports(deps: Deps, key: ApiKeyCaller, query: FeedQuery) {
  return reportsFeed(deps.db, {
    organisationId: key.organisationId,
    after: Number(query.after ?? 0),
    limit: query.limit,
  });
}

/** `GET /api/v1/activity`: the organisation's last 30 days. */
export function activity(deps: Deps, key: ApiKeyCaller) {
  return organisationActivity(deps, key.organisationId);
}
