import { type Actor, auditActor, type Deps, signedIn } from "@server/context";
import { findOrganisation, organisationFor, organisationsErrors } from "@server/features/organisations";
import * as users from "@server/features/users";
import { refuse } from "@server/lib/audit";
import { openSecret, SEALED_PURPOSES, sealSecret } from "@server/lib/sealed-secrets";
import { compose } from "@server/mail/templates";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { paths } from "@shared/paths";
import { SSO_TEXT, type SsoAnswer, type SsoBody } from "@shared/sso";
import { ssoErrors } from "./errors";
import { checkIssuer } from "./provider";
import * as repo from "./repository";

/** The redirect URI every provider is given: the same for every organisation. */
export const redirectUri = (deps: Deps) => `${deps.config.publicUrl}/api/auth/sso/callback`;

/** The client secret is sealed bound to its organisation and purpose; one that does not open must be typed again. */
export function openClientSecret(deps: Deps, row: repo.SsoConnectionRow): string {
  const { appSecret } = deps.config;
  const secret = openSecret(appSecret, SEALED_PURPOSES.ssoClientSecret, row.organisationId, row.clientSecretSealed);
  if (secret === null) throw ssoErrors.secretRequiredAgain();
  return secret;
}

function answer(deps: Deps, row: repo.SsoConnectionRow): NonNullable<SsoAnswer> {
  return {
    issuer: row.issuer,
    clientId: row.clientId,
    enforced: row.enforced,
    jitProvisioning: row.jitProvisioning,
    redirectUri: redirectUri(deps),
    secretHint: row.secretHint,
  };
}

/** The organisation's connection (never its secret), or null. An admin names the organisation. */
export async function getConnection(deps: Deps, actor: Actor, input: { organisationId?: number }): Promise<SsoAnswer> {
  const organisationId = organisationFor(actor, { requested: input.organisationId, orNone: true });
  if (organisationId === null) return null;
  const row = await repo.findConnection(deps.db, organisationId);
  return row ? answer(deps, row) : null;
}

/** The issuer as typed: an absolute http(s) URL without credentials, query or fragment. */
function checkedIssuerUrl(issuer: string): URL {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw ssoErrors.invalidIssuer(SSO_TEXT.issuerInvalid);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw ssoErrors.invalidIssuer(SSO_TEXT.issuerNotHttps);
  if (url.username || url.password || url.search || url.hash) throw ssoErrors.invalidIssuer(SSO_TEXT.issuerCredentials);
  if (issuer.includes("{tenantid}")) throw ssoErrors.invalidIssuer(SSO_TEXT.issuerMultiTenant);
  return url;
}

/** Tells every superuser of the organisation that its single sign-on changed (in the background). */
function mailSuperusers(deps: Deps, actor: Actor, organisationId: number, what: string) {
  const by = signedIn(actor).email;
  deps.background.run("sso change mail", async () => {
    const organisation = await findOrganisation(deps.db, organisationId);
    const company = organisation?.companyName ?? "your organisation";
    await users.notifyOrganisationAdmins(deps, organisationId, (to) =>
      compose(to, `CallProof single sign-on was changed for ${company}`, [
        `${by} ${what} on ${deps.clock.now().toISOString().slice(0, 16).replace("T", " ")} UTC.`,
        `Single sign-on decides who can sign in and make CallProof vouch for ${company}. If this was not expected, check it on the employer dashboard: ${deps.config.publicUrl}${paths.employerIntegrations}`,
      ]),
    );
  });
}

/**
 * Saves the organisation's connection after checking the issuer's discovery document. The client secret
 * is required the first time and whenever the issuer or client id changes (which also drops every SSO
 * link); switching `enforced` on ends the organisation's clients' sessions that SSO did not start.
 */
export async function saveConnection(
  deps: Deps,
  actor: Actor,
  input: SsoBody & { sessionHash: string | null },
): Promise<NonNullable<SsoAnswer>> {
  const user = signedIn(actor);
  const organisationId = user.organisationId;
  if (organisationId === null) throw organisationsErrors.noOrganisation();
  const audit = { ...auditActor(actor), action: AUDIT_ACTIONS.saveSso, organisationId };
  await users.assertRecentSignIn(deps, actor, input.sessionHash, {
    action: AUDIT_ACTIONS.saveSso,
  });

  checkedIssuerUrl(input.issuer);
  const existing = await repo.findConnection(deps.db, organisationId);
  const identityChanged =
    existing !== undefined && (existing.issuer !== input.issuer || existing.clientId !== input.clientId);
  const typedSecret = input.clientSecret === undefined || input.clientSecret === "" ? undefined : input.clientSecret;
  if (typedSecret === undefined) {
    if (!existing) throw ssoErrors.secretRequired();
    if (identityChanged) throw ssoErrors.secretRequiredAgain();
  }
  const clientSecret = typedSecret ?? openClientSecret(deps, existing as repo.SsoConnectionRow);

  const problem = await checkIssuer(deps, { issuer: input.issuer, clientId: input.clientId, clientSecret });
  if (problem) {
    await deps.audit.record({
      ...audit,
      outcome: "failure",
      detail: { reason: "issuer check failed", issuer: input.issuer, problem },
    });
    throw ssoErrors.invalidIssuer(problem);
  }

  const enforced = input.enforced ?? existing?.enforced ?? false;
  const jitProvisioning = input.jitProvisioning ?? existing?.jitProvisioning ?? true;
  const now = deps.clock.now();
  const { linksDropped, sessionsEnded } = await deps.db.transaction(async (tx) => {
    await repo.upsertConnection(tx, {
      organisationId,
      issuer: input.issuer,
      clientId: input.clientId,
      clientSecretSealed: sealSecret(
        deps.config.appSecret,
        SEALED_PURPOSES.ssoClientSecret,
        organisationId,
        clientSecret,
      ),
      secretHint: clientSecret.length >= 12 ? clientSecret.slice(-4) : "",
      enforced,
      jitProvisioning,
      now,
    });
    const linksDropped = identityChanged ? await users.deleteSsoLinksOfOrganisation(tx, organisationId) : 0;
    const sessionsEnded =
      enforced && !existing?.enforced ? await users.endNonSsoSessionsOfClients(tx, organisationId) : 0;
    return { linksDropped, sessionsEnded };
  });
  await deps.audit.record({
    ...audit,
    outcome: "success",
    detail: {
      issuer: input.issuer,
      clientId: input.clientId,
      enforced,
      jitProvisioning,
      secretChanged: typedSecret !== undefined,
      linksDropped,
      sessionsEnded,
    },
  });
  mailSuperusers(
    deps,
    actor,
    organisationId,
    `${existing ? "changed" : "set up"} single sign-on (issuer ${input.issuer}, ${enforced ? "required" : "optional"}, accounts ${jitProvisioning ? "created" : "not created"} on first sign-in)`,
  );
  const saved = await repo.findConnection(deps.db, organisationId);
  return answer(deps, saved as repo.SsoConnectionRow);
}

/** Removes the organisation's connection and its SSO links: passwords work again for everyone. */
export async function removeConnection(deps: Deps, actor: Actor, input: { sessionHash: string | null }) {
  const user = signedIn(actor);
  const organisationId = user.organisationId;
  if (organisationId === null) throw organisationsErrors.noOrganisation();
  await users.assertRecentSignIn(deps, actor, input.sessionHash, {
    action: AUDIT_ACTIONS.removeSso,
  });
  const audit = { ...auditActor(actor), action: AUDIT_ACTIONS.removeSso, organisationId };
  const gone = await deps.db.transaction(async (tx) => {
    const gone = await repo.deleteConnection(tx, organisationId);
    if (gone) await users.deleteSsoLinksOfOrganisation(tx, organisationId);
    return gone;
  });
  if (!gone) {
    return refuse(
      deps,
      { ...audit, outcome: "failure", detail: { reason: "not configured" } },
      ssoErrors.notConfigured(),
    );
  }
  await deps.audit.record({ ...audit, outcome: "success" });
  mailSuperusers(deps, actor, organisationId, "removed single sign-on");
  return { message: SSO_TEXT.removed };
}

// ---- what the other ways of signing in ask ----

/** Whether enforced SSO bars this account from every other way of signing in (only an organisation's clients). */
export async function ssoRequiredFor(
  deps: Pick<Deps, "db">,
  user: { role: string; organisationId: number | null },
): Promise<boolean> {
  if (user.role !== "client" || user.organisationId === null) return false;
  return repo.isEnforced(deps.db, user.organisationId);
}

/** Whether the organisation enforces SSO (register-employee is then refused for its domain). */
export function ssoEnforcedFor(deps: Pick<Deps, "db">, organisationId: number): Promise<boolean> {
  return repo.isEnforced(deps.db, organisationId);
}
