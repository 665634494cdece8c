import { randomAccessCode, seal, unseal } from "@server/lib/crypto";
import { conflict, notFound } from "@server/lib/errors";
import { currentUser } from "@server/plugins/guards";
import type { App, SessionUser } from "@server/types";
import { LIST_PAGE_SIZE, type ListQuery, type Page } from "@shared/admin";
import { TOKEN_LIFETIME } from "@shared/constants";
import { type AccessCodeRecord, EMPLOYER_MESSAGES, type EmployeeRecord } from "@shared/employer";
import { MESSAGES } from "@shared/messages";
import type { FastifyRequest } from "fastify";
import { pageEnvelope } from "../admin/paging";
import { actorOf } from "../audit/actions";
import { accessCodeHash } from "../onboarding/service";
import * as repo from "./repository";

/**
 * The organisation an employer-dashboard read is about: a superuser's own; for an admin (who has none)
 * the one named by `?organisationId=`, else none.
 */
function organisationFor(user: SessionUser, requested?: number): number | null {
  if (user.role === "admin") return requested ?? null;
  return user.organisationId;
}

/** The employer's profile. An admin (no organisation) sees the platform itself. */
export async function profile(app: App, request: FastifyRequest) {
  const user = currentUser(request);
  if (user.role === "admin") return { companyName: "CallProof", email: user.email, website: app.config.publicUrl };
  const organisation = user.organisationId ? await repo.findOrganisation(app.db, user.organisationId) : undefined;
  if (!organisation) throw notFound(EMPLOYER_MESSAGES.noOrganisation);
  return { companyName: organisation.companyName, email: user.email, website: organisation.website };
}

/** Active employees of the organisation: the whole array, or one page (`q` searches e-mail) when asked. */
export async function employees(
  app: App,
  request: FastifyRequest,
  query: ListQuery & { organisationId?: number },
): Promise<EmployeeRecord[] | Page<EmployeeRecord>> {
  const organisationId = organisationFor(currentUser(request), query.organisationId);
  const paged = query.q !== undefined || query.page !== undefined;
  const page = query.page ?? 1;
  if (organisationId === null) return paged ? pageEnvelope([], 0, page, LIST_PAGE_SIZE) : [];
  if (!paged) return repo.listEmployees(app.db, organisationId);
  const q = query.q || undefined;
  const [items, total] = await Promise.all([
    repo.listEmployees(app.db, organisationId, { q, limit: LIST_PAGE_SIZE, offset: (page - 1) * LIST_PAGE_SIZE }),
    repo.countEmployees(app.db, organisationId, q),
  ]);
  return pageEnvelope(items, total, page, LIST_PAGE_SIZE);
}

/** The newest employee access code of the organisation (shown again from its sealed copy), or null. */
export async function newestAccessCode(
  app: App,
  request: FastifyRequest,
  requestedOrganisation?: number,
): Promise<AccessCodeRecord | null> {
  const organisationId = organisationFor(currentUser(request), requestedOrganisation);
  if (organisationId === null) return null;
  const row = await repo.newestAccessCode(app.db, organisationId);
  if (!row) return null;
  return {
    code: unseal(app.config.appSecret, row.codeSealed),
    maxUsers: row.maxUsers,
    usedCount: row.usedCount,
    expiresAt: row.expiresAt.toISOString(),
  };
}

/** A new employee access code for 7 days or `maxUsers` sign-ups; 409 while another one is active. */
export async function generateAccessCode(
  app: App,
  request: FastifyRequest,
  maxUsers: number,
): Promise<AccessCodeRecord> {
  const user = currentUser(request);
  const audit = { ...actorOf(request), action: "employer.generate-access-code", organisationId: user.organisationId };
  if (!user.organisationId) {
    await app.audit.record({ ...audit, outcome: "failure", detail: { reason: "no organisation" } });
    throw notFound(EMPLOYER_MESSAGES.noOrganisation);
  }
  const now = app.clock.now();
  const code = randomAccessCode();
  const expiresAt = new Date(now.getTime() + TOKEN_LIFETIME.employeeAccessCodeMs);
  const inserted = await repo.insertAccessCodeIfNoneActive(app.db, {
    organisationId: user.organisationId,
    createdBy: user.id,
    codeHash: accessCodeHash(app, code),
    codeSealed: seal(app.config.appSecret, code),
    maxUsers,
    createdAt: now,
    expiresAt,
  });
  if (!inserted) {
    await app.audit.record({ ...audit, outcome: "denied", detail: { reason: "active code exists", maxUsers } });
    throw conflict(MESSAGES.activeCodeExists);
  }
  await app.audit.record({ ...audit, outcome: "success", detail: { maxUsers, expiresAt: expiresAt.toISOString() } });
  return { code, maxUsers, usedCount: 0, expiresAt: expiresAt.toISOString() };
}

/** Deactivates one of the caller's own employees; anyone else is 404. Its sessions end at once. */
export async function deactivateEmployee(app: App, request: FastifyRequest, id: number) {
  const user = currentUser(request);
  const audit = {
    ...actorOf(request),
    action: "employer.deactivate-employee",
    organisationId: user.organisationId,
    target: String(id),
  };
  const gone = user.organisationId
    ? await repo.deactivateEmployee(app.db, user.organisationId, id, app.clock.now())
    : undefined;
  if (!gone) {
    await app.audit.record({
      ...audit,
      outcome: "failure",
      detail: { reason: "not an active employee of this organisation" },
    });
    throw notFound(EMPLOYER_MESSAGES.employeeNotFound);
  }
  await app.audit.record({ ...audit, outcome: "success", detail: { email: gone.email } });
  return { message: EMPLOYER_MESSAGES.employeeDeactivated };
}
