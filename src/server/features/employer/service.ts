import { type Actor, auditActor, type Deps, signedIn } from "@server/context";
import { findOrganisation, organisationFor, organisationsErrors } from "@server/features/organisations";
import * as users from "@server/features/users";
import { accessCodeHash } from "@server/lib/access-codes";
import { refuse } from "@server/lib/audit";
import { randomAccessCode } from "@server/lib/crypto";
import { loadPage, pageEnvelope } from "@server/lib/paging";
import { openSecret, SEALED_PURPOSES, sealSecret } from "@server/lib/sealed-secrets";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { TOKEN_LIFETIME } from "@shared/constants";
import { type AccessCodeRecord, EMPLOYER_MESSAGES, type EmployeeRecord } from "@shared/employer";
import { LIST_PAGE_SIZE, type ListQuery, type Page } from "@shared/paging";
import { employerErrors } from "./errors";
import * as repo from "./repository";

/** The employer's profile. An admin (no organisation) sees the platform itself. */
export async function profile(deps: Deps, actor: Actor) {
  const user = signedIn(actor);
  if (user.role === "admin") return { companyName: "CallProof", email: user.email, website: deps.config.publicUrl };
  const organisation = user.organisationId ? await findOrganisation(deps.db, user.organisationId) : undefined;
  if (!organisation) throw organisationsErrors.noOrganisation();
  return { companyName: organisation.companyName, email: user.email, website: organisation.website };
}

/** Active employees of the organisation: the whole array, or one page (`q` searches e-mail) when asked. */
export async function employees(
  deps: Deps,
  actor: Actor,
  query: ListQuery & { organisationId?: number },
): Promise<EmployeeRecord[] | Page<EmployeeRecord>> {
  const organisationId = organisationFor(actor, { requested: query.organisationId, orNone: true });
  const paged = query.q !== undefined || query.page !== undefined;
  const page = query.page ?? 1;
  if (organisationId === null) return paged ? pageEnvelope([], 0, page, LIST_PAGE_SIZE) : [];
  if (!paged) return users.listEmployees(deps.db, organisationId);
  const q = query.q || undefined;
  return loadPage(
    page,
    LIST_PAGE_SIZE,
    (slice) => users.listEmployees(deps.db, organisationId, { q, ...slice }),
    () => users.countEmployees(deps.db, organisationId, q),
  );
}

/**
 * The newest employee access code of the organisation (shown again from its sealed copy), or null. A sealed
 * copy that does not open for this organisation (copied from another row, or another APP_SECRET) is never
 * shown: `code` is null and the panel says the code cannot be shown.
 */
export async function newestAccessCode(
  deps: Deps,
  actor: Actor,
  input: { organisationId?: number },
): Promise<AccessCodeRecord | null> {
  const organisationId = organisationFor(actor, { requested: input.organisationId, orNone: true });
  if (organisationId === null) return null;
  const row = await repo.newestAccessCode(deps.db, organisationId);
  if (!row) return null;
  return {
    code: openSecret(deps.config.appSecret, SEALED_PURPOSES.accessCode, organisationId, row.codeSealed),
    maxUsers: row.maxUsers,
    usedCount: row.usedCount,
    expiresAt: row.expiresAt.toISOString(),
  };
}

/** A new employee access code for 7 days or `maxUsers` sign-ups; 409 while another one is active. */
export async function generateAccessCode(
  deps: Deps,
  actor: Actor,
  input: { maxUsers: number },
): Promise<AccessCodeRecord> {
  const { maxUsers } = input;
  const user = signedIn(actor);
  const audit = {
    ...auditActor(actor),
    action: AUDIT_ACTIONS.generateAccessCode,
    organisationId: user.organisationId,
  };
  if (!user.organisationId) {
    return refuse(
      deps,
      { ...audit, outcome: "failure", detail: { reason: "no organisation" } },
      organisationsErrors.noOrganisation(),
    );
  }
  const now = deps.clock.now();
  const code = randomAccessCode();
  const expiresAt = new Date(now.getTime() + TOKEN_LIFETIME.employeeAccessCodeMs);
  const inserted = await repo.insertAccessCodeIfNoneActive(deps.db, {
    organisationId: user.organisationId,
    createdBy: user.id,
    codeHash: accessCodeHash(deps.config.appSecret, code),
    codeSealed: sealSecret(deps.config.appSecret, SEALED_PURPOSES.accessCode, user.organisationId, code),
    maxUsers,
    createdAt: now,
    expiresAt,
  });
  if (!inserted) {
    return refuse(
      deps,
      { ...audit, outcome: "denied", detail: { reason: "active code exists", maxUsers } },
      employerErrors.activeCodeExists(),
    );
  }
  await deps.audit.record({ ...audit, outcome: "success", detail: { maxUsers, expiresAt: expiresAt.toISOString() } });
  return { code, maxUsers, usedCount: 0, expiresAt: expiresAt.toISOString() };
}

/** Deactivates one of the caller's own employees; anyone else is 404. Its sessions end at once. */
export async function deactivateEmployee(deps: Deps, actor: Actor, input: { id: number }) {
  const user = signedIn(actor);
  const audit = {
    ...auditActor(actor),
    action: AUDIT_ACTIONS.deactivateEmployee,
    organisationId: user.organisationId,
    target: String(input.id),
  };
  const gone = user.organisationId
    ? await users.deactivateEmployee(deps.db, user.organisationId, input.id, deps.clock.now())
    : undefined;
  if (!gone) {
    await deps.audit.record({
      ...audit,
      outcome: "failure",
      detail: { reason: "not an active employee of this organisation" },
    });
    throw employerErrors.employeeNotFound();
  }
  await deps.audit.record({ ...audit, outcome: "success", detail: { email: gone.email } });
  await users.afterDeactivation(deps, [gone.id]);
  return { message: EMPLOYER_MESSAGES.employeeDeactivated };
}
