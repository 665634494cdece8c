import { conflict, notFound } from "@server/lib/errors";
import { employerActivatedMail } from "@server/mail/templates";
import { currentUser } from "@server/plugins/guards";
import type { App } from "@server/types";
import { type AccountRecord, ADMIN_MESSAGES, LIST_PAGE_SIZE, type ListQuery, type Page } from "@shared/admin";
import { paths } from "@shared/paths";
import type { FastifyRequest } from "fastify";
import { actorOf } from "../audit/actions";
import { findUserById } from "../auth/users";
import { findOrganisationByDomain } from "../onboarding/repository";
import { pageEnvelope } from "./paging";
import * as repo from "./repository";

/** Pending employer accounts whose e-mail is verified, oldest first. */
export function pendingAccounts(app: App) {
  return repo.listEmployers(app.db, "pending");
}

/**
 * Active employer accounts: the whole list (the contract's plain array) or, when `q` or `page` is
 * given, one page of 10 searched by full name, e-mail or website.
 */
export async function activeEmployers(app: App, query: ListQuery): Promise<AccountRecord[] | Page<AccountRecord>> {
  if (query.q === undefined && query.page === undefined) return repo.listEmployers(app.db, "active");
  const page = query.page ?? 1;
  const q = query.q || undefined;
  const [items, total] = await Promise.all([
    repo.listEmployers(app.db, "active", { q, limit: LIST_PAGE_SIZE, offset: (page - 1) * LIST_PAGE_SIZE }),
    repo.countEmployers(app.db, "active", q),
  ]);
  return pageEnvelope(items, total, page, LIST_PAGE_SIZE);
}

export function stats(app: App) {
  return repo.stats(app.db);
}

/** Activates a pending employer (its e-mail verified) and tells it by e-mail. */
export async function activateAccount(app: App, request: FastifyRequest, id: number) {
  const audit = { ...actorOf(request), action: "admin.activate-account", target: String(id) };
  const activated = await repo.activateEmployer(app.db, id, app.clock.now());
  if (!activated) {
    const user = await findUserById(app.db, id);
    const unverified = user?.role === "superuser" && user.status === "pending" && !user.emailVerifiedAt;
    await app.audit.record({
      ...audit,
      outcome: "failure",
      organisationId: user?.organisationId,
      detail: { reason: unverified ? "email not verified" : "not a pending employer" },
    });
    throw unverified ? conflict(ADMIN_MESSAGES.emailNotVerifiedYet) : notFound(ADMIN_MESSAGES.pendingNotFound);
  }
  await app.audit.record({
    ...audit,
    outcome: "success",
    organisationId: activated.organisationId,
    detail: { email: activated.email },
  });
  try {
    await app.mailer.send(employerActivatedMail(activated.email, `${app.config.publicUrl}${paths.login}`));
  } catch (err) {
    // The activation stands; the courtesy mail is not worth failing it for.
    request.log.warn({ err }, "activation mail not sent");
  }
  return { message: ADMIN_MESSAGES.accountActivated };
}

/**
 * Deactivates an employer account (pending or active) and every account of its organisation; their
 * sessions end at once and their live codes stop verifying (a code verifies only for an active owner).
 */
export async function deactivateEmployer(app: App, request: FastifyRequest, id: number) {
  const audit = { ...actorOf(request), action: "admin.deactivate-employer", target: String(id) };
  const gone = await repo.deactivateEmployer(app.db, id, app.clock.now());
  if (!gone) {
    await app.audit.record({ ...audit, outcome: "failure", detail: { reason: "not an active or pending employer" } });
    throw notFound(ADMIN_MESSAGES.employerNotFound);
  }
  await app.audit.record({
    ...audit,
    outcome: "success",
    organisationId: gone.organisationId,
    detail: { email: gone.email, count: gone.count },
  });
  return { message: ADMIN_MESSAGES.employerDeactivated, count: gone.count };
}

/** Deactivates every employer and employee at exactly this e-mail domain; admins are never affected. */
export async function deactivateByDomain(app: App, request: FastifyRequest, domain: string) {
  const admin = currentUser(request);
  const ids = await repo.deactivateDomain(app.db, domain, app.clock.now(), admin.id);
  const organisation = await findOrganisationByDomain(app.db, domain);
  await app.audit.record({
    ...actorOf(request),
    action: "admin.deactivate-by-domain",
    target: domain,
    organisationId: organisation?.id ?? null,
    outcome: "success",
    detail: { count: ids.length, userIds: ids.slice(0, 1000) },
  });
  return { message: ADMIN_MESSAGES.domainDeactivated(ids.length, domain), count: ids.length };
}
