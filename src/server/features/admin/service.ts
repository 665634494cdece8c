import { type Actor, auditActor, type Deps, signedIn } from "@server/context";
import { findOrganisationByDomain } from "@server/features/organisations";
import * as repo from "@server/features/users";
import { loadPage } from "@server/lib/paging";
import { employerActivatedMail } from "@server/mail/templates";
import { type AccountRecord, ADMIN_MESSAGES } from "@shared/admin";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { LIST_PAGE_SIZE, type ListQuery, type Page } from "@shared/paging";
import { paths } from "@shared/paths";
import { adminErrors } from "./errors";

/** Pending employer accounts whose e-mail is verified, oldest first. */
export function pendingAccounts(deps: Deps) {
  return repo.listEmployers(deps.db, "pending");
}

/**
 * Active employer accounts: the whole list (a plain array) or, when `q` or `page` is given, one page
 * of 10 searched by full name, e-mail or website.
 */
export async function activeEmployers(deps: Deps, query: ListQuery): Promise<AccountRecord[] | Page<AccountRecord>> {
  if (query.q === undefined && query.page === undefined) return repo.listEmployers(deps.db, "active");
  const q = query.q || undefined;
  return loadPage(
    query.page ?? 1,
    LIST_PAGE_SIZE,
    (slice) => repo.listEmployers(deps.db, "active", { q, ...slice }),
    () => repo.countEmployers(deps.db, "active", q),
  );
}

export function stats(deps: Deps) {
  return repo.codeTotals(deps.db);
}

/** Activates a pending employer (its e-mail verified) and tells it by e-mail. */
export async function activateAccount(deps: Deps, actor: Actor, input: { id: number }) {
  const audit = { ...auditActor(actor), action: AUDIT_ACTIONS.activateAccount, target: String(input.id) };
  const activated = await repo.activateEmployer(deps.db, input.id, deps.clock.now());
  if (!activated) {
    const user = await repo.findUserById(deps.db, input.id);
    const unverified = user?.role === "superuser" && user.status === "pending" && !user.emailVerifiedAt;
    await deps.audit.record({
      ...audit,
      outcome: "failure",
      organisationId: user?.organisationId,
      detail: { reason: unverified ? "email not verified" : "not a pending employer" },
    });
    throw unverified ? adminErrors.emailNotVerifiedYet() : adminErrors.pendingNotFound();
  }
  await deps.audit.record({
    ...audit,
    outcome: "success",
    organisationId: activated.organisationId,
    detail: { email: activated.email },
  });
  try {
    await deps.mailer.send(employerActivatedMail(activated.email, `${deps.config.publicUrl}${paths.login}`));
  } catch (err) {
    // The activation stands; the courtesy mail is not worth failing it for.
    deps.log.warn({ err, requestId: actor.requestId }, "activation mail not sent");
  }
  return { message: ADMIN_MESSAGES.accountActivated };
}

/**
 * Deactivates an employer account (pending or active) and every account of its organisation; their
 * sessions end at once and their live codes stop verifying (a code verifies only for an active owner).
 */
export async function deactivateEmployer(deps: Deps, actor: Actor, input: { id: number }) {
  const audit = { ...auditActor(actor), action: AUDIT_ACTIONS.deactivateEmployer, target: String(input.id) };
  const gone = await repo.deactivateEmployer(deps.db, input.id, deps.clock.now());
  if (!gone) {
    await deps.audit.record({ ...audit, outcome: "failure", detail: { reason: "not an active or pending employer" } });
    throw adminErrors.employerNotFound();
  }
  await deps.audit.record({
    ...audit,
    outcome: "success",
    organisationId: gone.organisationId,
    detail: { email: gone.email, count: gone.count },
  });
  await repo.afterDeactivation(deps, gone.ids);
  return { message: ADMIN_MESSAGES.employerDeactivated, count: gone.count };
}

/** Deactivates every employer and employee at exactly this e-mail domain; admins are never affected. */
export async function deactivateByDomain(deps: Deps, actor: Actor, input: { domain: string }) {
  const { domain } = input;
  const admin = signedIn(actor);
  const ids = await repo.deactivateDomain(deps.db, domain, deps.clock.now(), admin.id);
  const organisation = await findOrganisationByDomain(deps.db, domain);
  await deps.audit.record({
    ...auditActor(actor),
    action: AUDIT_ACTIONS.deactivateByDomain,
    target: domain,
    organisationId: organisation?.id ?? null,
    outcome: "success",
    detail: { count: ids.length, userIds: ids.slice(0, 1000) },
  });
  await repo.afterDeactivation(deps, ids);
  return { message: ADMIN_MESSAGES.domainDeactivated(ids.length, domain), count: ids.length };
}
