import { randomBytes } from "node:crypto";
import { type Actor, auditActor, type Deps } from "@server/context";
import type { Db } from "@server/db/client";
import { findOrganisation, organisationFor, organisationsErrors } from "@server/features/organisations";
import { notifyOrganisationAdmins } from "@server/features/users";
import { refuse } from "@server/lib/audit";
import { siteProofLostMail } from "@server/mail/templates";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { paths } from "@shared/paths";
import { isHostUnder, SITE_LIMITS, type SiteCheckAnswer, type SiteRecord } from "@shared/sites";
import { sitesErrors } from "./errors";
import type { Prover } from "./prover";
import * as repo from "./repository";

/** What the sites services use: the shared dependencies and the prover that looks proofs up. */
export type SitesDeps = Deps & { prover: Prover };

/** An unguessable token for the proofs (128 random bits, hex). */
const newToken = () => randomBytes(16).toString("hex");

/** The e-mail domain of an organisation, or undefined when there is no such organisation. */
async function organisationDomain(db: repo.Executor, organisationId: number): Promise<string | undefined> {
  return (await findOrganisation(db, organisationId))?.domain;
}

/**
 * The sites of the caller's organisation; an admin names the organisation with `organisationId`
 * (without it, an admin has none to show).
 */
export async function listSites(
  deps: Pick<SitesDeps, "db">,
  actor: Actor,
  input: { organisationId?: number },
): Promise<SiteRecord[]> {
  const organisationId = organisationFor(actor, { requested: input.organisationId, orNone: true });
  const domain = organisationId === null ? undefined : await organisationDomain(deps.db, organisationId);
  return organisationId === null || domain === undefined ? [] : repo.listSites(deps.db, organisationId, domain);
}

/**
 * Adds a host to the caller's organisation. A host under its verified e-mail domain is verified at once
 * (the domain covers it); any other starts pending with a fresh token for its proof.
 */
export async function addSite(deps: SitesDeps, actor: Actor, input: { host: string }): Promise<SiteRecord> {
  const organisationId = organisationFor(actor);
  const now = deps.clock.now();
  const audit = { ...auditActor(actor), action: AUDIT_ACTIONS.addSite, organisationId, target: input.host };
  if ((await repo.countSites(deps.db, organisationId)) >= SITE_LIMITS.maxSitesPerOrganisation) {
    return refuse(
      deps,
      { ...audit, outcome: "failure", detail: { reason: "too many sites" } },
      sitesErrors.tooManySites(),
    );
  }
  const domain = await organisationDomain(deps.db, organisationId);
  const domainSite = domain ? await repo.findSite(deps.db, organisationId, domain) : undefined;
  const covered = domain && domainSite?.status === "verified" && isHostUnder(input.host, domain);
  const site = await repo.insertSite(deps.db, {
    organisationId,
    host: input.host,
    token: newToken(),
    now,
    ...(covered ? { method: "email-domain" as const } : {}),
  });
  if (!site) {
    return refuse(deps, { ...audit, outcome: "failure", detail: { reason: "exists" } }, sitesErrors.siteExists());
  }
  await deps.audit.record({ ...audit, outcome: "success", detail: { status: site.status } });
  return site;
}

/** Removes a host from the caller's organisation; its e-mail domain stays (409). */
export async function removeSite(deps: SitesDeps, actor: Actor, input: { host: string }) {
  const organisationId = organisationFor(actor);
  const audit = { ...auditActor(actor), action: AUDIT_ACTIONS.removeSite, organisationId, target: input.host };
  if ((await organisationDomain(deps.db, organisationId)) === input.host) {
    return refuse(
      deps,
      { ...audit, outcome: "failure", detail: { reason: "email domain" } },
      sitesErrors.emailDomainFixed(),
    );
  }
  if (!(await repo.deleteSite(deps.db, organisationId, input.host))) throw sitesErrors.siteNotFound();
  await deps.audit.record({ ...audit, outcome: "success" });
  return { message: "Site removed." };
}

/**
 * "Check now": looks up the DNS record, then the well-known file. A found proof verifies the site; a
 * site verified by a look-up whose proof is gone turns pending. Sites verified by the e-mail domain or
 * an admin need no look-up. At most 10 checks per organisation in 10 minutes (each makes outbound calls).
 */
export async function checkSite(deps: SitesDeps, actor: Actor, input: { host: string }): Promise<SiteCheckAnswer> {
  const organisationId = organisationFor(actor);
  const site = await repo.findSite(deps.db, organisationId, input.host);
  if (!site) throw sitesErrors.siteNotFound();
  if (site.method === "email-domain" || site.method === "admin") {
    return { host: site.host, status: site.status, method: site.method };
  }
  const now = deps.clock.now();
  const limit = await deps.limits.hit(
    `sites-check:org:${organisationId}`,
    SITE_LIMITS.checksPerWindow,
    SITE_LIMITS.checkWindowMs,
    now,
  );
  if (!limit.allowed) throw sitesErrors.tooManyChecks(limit.retryAfterSeconds);
  const proof = await deps.prover.prove(site.host, site.token);
  const audit = { ...auditActor(actor), action: AUDIT_ACTIONS.checkSite, organisationId, target: site.host };
  if (proof) {
    await repo.markVerified(deps.db, site.id, proof, now);
    await deps.audit.record({ ...audit, outcome: "success", detail: { method: proof } });
    return { host: site.host, status: "verified", method: proof };
  }
  if (site.status === "verified") await repo.markPending(deps.db, site.id, now);
  else await repo.markChecked(deps.db, site.id, now);
  await deps.audit.record({ ...audit, outcome: "failure", detail: { reason: "no proof found" } });
  return { host: site.host, status: "pending", method: null };
}

/** A platform admin vouches for a host of an organisation after checking it by other means. */
export async function adminVerifySite(
  deps: SitesDeps,
  actor: Actor,
  input: { organisationId: number; host: string },
): Promise<SiteCheckAnswer> {
  const { organisationId, host } = input;
  const audit = { ...auditActor(actor), action: AUDIT_ACTIONS.adminVerifySite, organisationId, target: host };
  if ((await organisationDomain(deps.db, organisationId)) === undefined) {
    return refuse(
      deps,
      { ...audit, outcome: "failure", detail: { reason: "no organisation" } },
      organisationsErrors.unknownOrganisation(),
    );
  }
  const now = deps.clock.now();
  const site = await repo.findSite(deps.db, organisationId, host);
  if (site) await repo.markVerified(deps.db, site.id, "admin", now);
  else await repo.insertSite(deps.db, { organisationId, host, token: newToken(), now, method: "admin" });
  await deps.audit.record({ ...audit, outcome: "success" });
  return { host, status: "verified", method: "admin" };
}

/** The sites a new organisation starts with: its e-mail domain and its website, both pending until proved. */
export async function addRegistrationSites(
  db: repo.Executor,
  input: { organisationId: number; domain: string; websiteHost: string; now: Date },
) {
  for (const host of new Set([input.domain, input.websiteHost])) {
    await repo.insertSite(db, { organisationId: input.organisationId, host, token: newToken(), now: input.now });
  }
}

/** An account at the organisation's e-mail domain verified its address: that domain is proved. */
export async function emailDomainProved(db: Db, input: { organisationId: number; emailDomain: string; now: Date }) {
  if ((await organisationDomain(db, input.organisationId)) !== input.emailDomain) return;
  await repo.verifyEmailDomain(db, input.organisationId, input.emailDomain, input.now);
}

/**
 * The daily re-check: every site proved by DNS or the file and not looked up for a day is looked up
 * again. When its proof is gone it turns pending (its codes stop verifying there), the event is audited
 * and the organisation's employers are told by e-mail. Returns the hosts that lost their proof.
 */
export async function recheckSites(deps: SitesDeps, batch = 50): Promise<string[]> {
  const now = deps.clock.now();
  const due = await repo.claimDueForRecheck(deps.db, new Date(now.getTime() - SITE_LIMITS.recheckEveryMs), now, batch);
  const lost: string[] = [];
  for (const site of due) {
    const proof = await deps.prover.prove(site.host, site.token);
    if (proof) {
      if (proof !== site.method) await repo.markVerified(deps.db, site.id, proof, now);
      continue;
    }
    lost.push(site.host);
    await repo.markPending(deps.db, site.id, now);
    await deps.audit.record({
      action: AUDIT_ACTIONS.siteProofLost,
      outcome: "failure",
      organisationId: site.organisationId,
      target: site.host,
      detail: { method: site.method },
    });
    const url = `${deps.config.publicUrl}${paths.employerSites}`;
    await notifyOrganisationAdmins(deps, site.organisationId, (to) => siteProofLostMail(to, site.host, url));
  }
  return lost;
}
