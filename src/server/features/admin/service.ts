import { type Actor, auditActor, type Deps, signedIn } from "@server/context";
import {
  deactivateOrganisation,
  findOrganisationByDomain,
  listDeactivatedOrganisations,
  reactivateOrganisation as markOrganisationActive,
} from "@server/features/organisations";
import { websiteVerifiedSql as websiteVerified } from "@server/features/sites";
import * as repo from "@server/features/users";
import { refuse } from "@server/lib/audit";
import { loadPage } from "@server/lib/paging";
import { employerActivatedMail } from "@server/mail/templates";
import { type AccountRecord, ADMIN_MESSAGES, type DeactivatedOrganisation } from "@shared/admin";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { LIST_PAGE_SIZE, type ListQuery, type Page } from "@shared/paging";
import { paths } from "@shared/paths";
import { adminErrors } from "./errors";

/** Pending employer accounts whose e-mail is verified, oldest first. */
export function pendingAccounts(deps: Deps) {
  return repo.listEmployers(deps.db, "pending", { websiteVerified });
}

/**
 * Active employer accounts: the whole list (a plain array) or, when `q` or `page` is given, one page
 * of 10 searched by full name, e-mail or website.
 */
export async function activeEmployers(deps: Deps, query: ListQuery): Promise<AccountRecord[] | Page<AccountRecord>> {
  if (query.q === undefined && query.page === undefined)
    return repo.listEmployers(deps.db, "active", { websiteVerified });
  const q = query.q || undefined;
  return loadPage(
    query.page ?? 1,
    LIST_PAGE_SIZE,
    (slice) => repo.listEmployers(deps.db, "active", { websiteVerified, q, ...slice }),
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
 * Deactivates an employer's organisation and every account of it (the employer included, whatever its
 * status: it still works when no superuser is left active); their sessions end at once, their SSO links
 * go, and their live codes stop verifying (the look-up refuses a deactivated organisation and an inactive
 * owner). The organisation is marked first: from that commit every way in refuses it, even should the
 * rest fail (the admin then runs it again).
 */
export async function deactivateEmployer(deps: Deps, actor: Actor, input: { id: number }) {
  const audit = { ...auditActor(actor), action: AUDIT_ACTIONS.deactivateEmployer, target: String(input.id) };
  const now = deps.clock.now();
  const employer = await repo.findUserById(deps.db, input.id);
  if (employer?.role === "superuser" && employer.organisationId !== null) {
    await deactivateOrganisation(deps.db, employer.organisationId, now);
  }
  const gone = employer?.role === "superuser" ? await repo.deactivateEmployer(deps.db, input.id, now) : undefined;
  if (!gone) {
    return refuse(
      deps,
      { ...audit, outcome: "failure", detail: { reason: "not an employer" } },
      adminErrors.employerNotFound(),
    );
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

/**
 * Deactivates the organisation whose domain this is (if any) with every one of its accounts, however
 * created, and every other employer and employee whose e-mail is at this domain or under it (but not
 * another organisation's, whose own domain is under it); admins are never affected. The organisation is
 * marked first, as in deactivateEmployer.
 */
export async function deactivateByDomain(deps: Deps, actor: Actor, input: { domain: string }) {
  const { domain } = input;
  const admin = signedIn(actor);
  const now = deps.clock.now();
  const organisation = await findOrganisationByDomain(deps.db, domain);
  if (organisation) await deactivateOrganisation(deps.db, organisation.id, now);
  const ids = await repo.deactivateDomain(deps.db, domain, organisation?.id ?? null, now, admin.id);
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

/** The organisations an admin deactivated, most recent first: where the dashboard offers "Reactivate". */
export async function deactivatedOrganisations(deps: Deps): Promise<DeactivatedOrganisation[]> {
  const rows = await listDeactivatedOrganisations(deps.db);
  return rows.map((r) => ({ ...r, deactivatedAt: r.deactivatedAt?.toISOString() ?? null }));
}

/**
 * An admin's reactivation, the only way a deactivated organisation becomes active again. It restores the
 * organisation, not its accounts: they stay deactivated (a reactivation is not the undoing of every
 * decision the deactivation cascade made), and its employers wait in the pending list, so that the
 * admin activates each one deliberately (activate-account) and they take it from there.
 */
export async function reactivateOrganisation(deps: Deps, actor: Actor, input: { id: number }) {
  const audit = { ...auditActor(actor), action: AUDIT_ACTIONS.reactivateOrganisation, target: String(input.id) };
  const done = await deps.db.transaction(async (tx) => {
    const organisation = await markOrganisationActive(tx, input.id);
    return organisation ? { organisation, pending: await repo.employersPendingAgain(tx, input.id) } : undefined;
  });
  if (!done) {
    return refuse(
      deps,
      { ...audit, outcome: "failure", detail: { reason: "not a deactivated organisation" } },
      adminErrors.deactivatedOrganisationNotFound(),
    );
  }
  await deps.audit.record({
    ...audit,
    outcome: "success",
    organisationId: input.id,
    detail: { domain: done.organisation.domain, pendingEmployers: done.pending.length },
  });
  return { message: ADMIN_MESSAGES.organisationReactivated(done.organisation.companyName, done.pending.length) };
}
