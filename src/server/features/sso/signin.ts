import type { Actor, Deps } from "@server/context";
import { findOrganisation, findOrganisationOwningDomain, organisationIsActive } from "@server/features/organisations";
import { hasScimToken } from "@server/features/scim";
import * as users from "@server/features/users";
import { hmac, randomToken, sha256 } from "@server/lib/crypto";
import { ipNetwork48 } from "@server/lib/ip";
import { auditsRefusal } from "@server/lib/rate-limit";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import type { Role } from "@shared/constants";
import { emailDomain } from "@shared/onboarding";
import { SSO, type SsoDiscoverAnswer, type SsoFailureReason } from "@shared/sso";
import { nameSchema, normaliseEmail } from "@shared/validation";
import * as oidc from "openid-client";
import { ssoErrors } from "./errors";
import { failureReason, providerConfig } from "./provider";
import * as repo from "./repository";
import { openClientSecret, redirectUri } from "./service";

/**
 * Signing in through the organisation's identity provider: discovery by e-mail domain, the start (a state
 * bound to the browser, PKCE S256 and a nonce) and the callback (openid-client checks the answer and the
 * ID token; here the identity rules decide which account it signs in, if any).
 */

const GOOGLE_ISSUER = "https://accounts.google.com";

/**
 * Microsoft Entra ID's issuers: `https://login.microsoftonline.com/<tenant>/v2.0` and the v1 form
 * `https://sts.windows.net/<tenant>/`, for one tenant (a GUID). Only these vouch with `xms_edov`: another
 * provider may let its users set any claim, that one included.
 */
const ENTRA_ISSUER =
  /^https:\/\/(?:login\.microsoftonline\.com\/[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}\/v2\.0|sts\.windows\.net\/[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}\/)$/;
export const isEntraIssuer = (issuer: string) => ENTRA_ISSUER.test(issuer);

/** The organisation an e-mail belongs to (the longest matching domain) when it is active and has SSO. */
async function connectionForEmail(deps: Deps, email: string) {
  const address = normaliseEmail(email);
  if (!address) return undefined;
  const organisation = await findOrganisationOwningDomain(deps.db, emailDomain(address));
  if (!organisation) return undefined;
  const connection = await repo.findConnection(deps.db, organisation.id);
  if (!connection) return undefined;
  if (!organisationIsActive(organisation)) return undefined;
  return { organisation, connection, email: address };
}

type Limit = { limit: number; windowMs: number };

/**
 * The rate-limit key of a client's network: an IPv6 client's /48 (one site's allocation, 65,536 /64s),
 * else its own key (IPv4 addresses are scarce enough to count one by one).
 */
const networkKey = (actor: Actor) => ipNetwork48(actor.ip) ?? actor.clientKey;

/**
 * Counts a request of an anonymous SSO route before any work or write, per client address (IPv6 by /64)
 * and, for IPv6, per /48 too, so that one network cannot multiply the budget by its number of /64s.
 * Beyond either: 429 (the callback: a redirect), its refusals audited sparsely (1st, 10th, 100th…).
 */
async function limitPerIp(
  deps: Deps,
  actor: Actor,
  name: "discover" | "start" | "callback",
  limits: { perIp: Limit; perNetwork: Limit },
): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }> {
  const now = deps.clock.now();
  let result = await deps.limits.hit(
    `sso-${name}:ip:${actor.clientKey}`,
    limits.perIp.limit,
    limits.perIp.windowMs,
    now,
  );
  const network = ipNetwork48(actor.ip);
  if (result.allowed && network !== null)
    result = await deps.limits.hit(
      `sso-${name}:net48:${network}`,
      limits.perNetwork.limit,
      limits.perNetwork.windowMs,
      now,
    );
  if (result.allowed) return { allowed: true };
  if (auditsRefusal(result.refused)) {
    await deps.audit.record({
      action: name === "callback" ? AUDIT_ACTIONS.ssoSignIn : AUDIT_ACTIONS.ssoStart,
      outcome: "denied",
      ip: actor.ip,
      detail: { reason: "throttled", refused: result.refused },
    });
  }
  return { allowed: false, retryAfterSeconds: result.retryAfterSeconds };
}

/**
 * Whether a callback refused before any state of ours was found is worth an audit row: the 1st, 10th,
 * 100th… of the client's network in the window (a counter that never lets through: its `refused` is how
 * many such refusals came in a row), as SCIM and /api/v1 audit their refusals. Returns the count, or null.
 */
async function sparseCallbackRefusal(deps: Deps, actor: Actor): Promise<number | null> {
  const seen = await deps.limits.hit(
    `sso-callback-refusals:${networkKey(actor)}`,
    0,
    SSO.callbacksPerIp.windowMs,
    deps.clock.now(),
  );
  return auditsRefusal(seen.refused) ? seen.refused : null;
}

/** GET /api/auth/sso/discover: whether the e-mail's organisation signs in with SSO (and whether it must). */
export async function discover(deps: Deps, actor: Actor, input: { email: string }): Promise<SsoDiscoverAnswer> {
  const allowance = await limitPerIp(deps, actor, "discover", {
    perIp: SSO.discoverPerIp,
    perNetwork: SSO.discoverPerNetwork,
  });
  if (!allowance.allowed) throw ssoErrors.tooManyAttempts(allowance.retryAfterSeconds);
  const found = await connectionForEmail(deps, input.email);
  if (!found) return { sso: false };
  return { sso: true, organisation: found.organisation.companyName, enforced: found.connection.enforced };
}

/** The PKCE verifier and the nonce of an attempt: derived from the browser's cookie and the state, never stored. */
function attemptSecrets(deps: Deps, browserSecret: string, state: string) {
  return {
    verifier: hmac(deps.config.appSecret, "sso-pkce-verifier", `${browserSecret}\0${state}`),
    nonce: hmac(deps.config.appSecret, "sso-nonce", `${browserSecret}\0${state}`),
  };
}

export type StartResult = { redirect: string };

/**
 * POST /api/auth/sso/start (from /login only: see routes.ts): a new attempt (state single use for 10
 * minutes, bound to this browser's cookie) and the provider's authorization URL. 404 when the e-mail's
 * domain has no SSO; a provider that cannot be reached sends the browser back to /login with the reason.
 */
export async function start(
  deps: Deps,
  actor: Actor,
  input: { email: string; browserSecret: string },
): Promise<StartResult> {
  const allowance = await limitPerIp(deps, actor, "start", {
    perIp: SSO.startsPerIp,
    perNetwork: SSO.startsPerNetwork,
  });
  if (!allowance.allowed) throw ssoErrors.tooManyAttempts(allowance.retryAfterSeconds);
  const found = await connectionForEmail(deps, input.email);
  if (!found) throw ssoErrors.noSsoForDomain();
  const { organisation, connection, email } = found;
  const audit = { action: AUDIT_ACTIONS.ssoStart, organisationId: organisation.id, actorEmail: email, ip: actor.ip };
  let config: oidc.Configuration;
  try {
    config = await providerConfig(deps, {
      issuer: connection.issuer,
      clientId: connection.clientId,
      clientSecret: openClientSecret(deps, connection),
    });
  } catch (err) {
    const { reason, detail } = failureReason(err);
    await deps.audit.record({ ...audit, outcome: "failure", detail: { reason, why: detail } });
    return { redirect: failedRedirect(reason === "invalid-token" ? "provider-unreachable" : reason) };
  }
  const state = randomToken(32);
  const { verifier, nonce } = attemptSecrets(deps, input.browserSecret, state);
  await repo.insertState(deps.db, {
    stateHash: sha256(state),
    binding: sha256(input.browserSecret),
    organisationId: organisation.id,
    issuer: connection.issuer,
    clientId: connection.clientId,
    now: deps.clock.now(),
    lifetimeMs: SSO.stateLifetimeMs,
  });
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri(deps),
    scope: "openid email profile",
    state,
    nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    login_hint: email,
  });
  await deps.audit.record({ ...audit, outcome: "success", detail: { issuer: connection.issuer } });
  return { redirect: url.href };
}

export const failedRedirect = (reason: SsoFailureReason) => `/login?sso=failed&reason=${reason}`;

export type CallbackResult =
  | { ok: true; userId: number; role: Role }
  | { ok: false; reason: SsoFailureReason; retryAfterSeconds?: number };

type Claims = Record<string, unknown>;

/** A display name from the token for a new account: `name`, else given and family names, else the e-mail's local part. */
function nameFrom(claims: Claims, email: string): string {
  const given = typeof claims.given_name === "string" ? claims.given_name : "";
  const family = typeof claims.family_name === "string" ? claims.family_name : "";
  for (const candidate of [claims.name, `${given} ${family}`, email.slice(0, email.indexOf("@"))]) {
    if (typeof candidate !== "string") continue;
    const parsed = nameSchema("Name").safeParse(candidate.slice(0, 100));
    if (parsed.success) return parsed.data;
  }
  return "Employee";
}

/**
 * GET /api/auth/sso/callback: the provider's answer. The state must be one this browser started (single
 * use, 10 minutes); openid-client exchanges the code with the PKCE verifier and checks the ID token
 * (signature by the issuer's keys, iss, aud, exp, nonce). Then: the account linked to `(iss, sub)`; else,
 * at the first SSO sign-in, the organisation's account with that verified e-mail (and the link is made);
 * else, with JIT, a new active employee. Every refusal says why (the reason /login shows) and is audited.
 */
export async function callback(
  deps: Deps,
  actor: Actor,
  input: { currentUrl: URL; browserSecret: string | undefined },
): Promise<CallbackResult> {
  const allowance = await limitPerIp(deps, actor, "callback", {
    perIp: SSO.callbacksPerIp,
    perNetwork: SSO.callbacksPerNetwork,
  });
  if (!allowance.allowed) return { ok: false, reason: "too-many-attempts" };
  const params = input.currentUrl.searchParams;
  const state = params.get("state") ?? "";
  const audit = { action: AUDIT_ACTIONS.ssoSignIn, ip: actor.ip };
  const refuse = async (
    reason: SsoFailureReason,
    extra: { organisationId?: number; actorId?: number; actorEmail?: string; why?: string } = {},
  ): Promise<CallbackResult> => {
    const { why, ...who } = extra;
    await deps.audit.record({ ...audit, ...who, outcome: "denied", detail: { reason, ...(why ? { why } : {}) } });
    return { ok: false, reason };
  };

  // Refused before any state of ours was found: anyone can send these, so they are audited sparsely.
  // (Every later refusal follows a state a start wrote, within the start's own limit, and is audited.)
  const refuseUnknown = async (reason: SsoFailureReason, why: string): Promise<CallbackResult> => {
    const refused = await sparseCallbackRefusal(deps, actor);
    if (refused !== null) await deps.audit.record({ ...audit, outcome: "denied", detail: { reason, why, refused } });
    return { ok: false, reason };
  };
  if (!state || !input.browserSecret) return refuseUnknown("invalid-state", state ? "no browser cookie" : "no state");
  const now = deps.clock.now();
  const use = await repo.consumeState(deps.db, sha256(state), sha256(input.browserSecret), now);
  if (!use.ok) return refuseUnknown(use.why === "expired" ? "expired-state" : "invalid-state", use.why);
  const organisationId = use.organisationId;
  const connection = await repo.findConnection(deps.db, organisationId);
  if (!connection || connection.issuer !== use.issuer || connection.clientId !== use.clientId)
    return refuse("not-configured", { organisationId });
  const organisation = await findOrganisation(deps.db, organisationId);
  if (!organisation || !organisationIsActive(organisation))
    return refuse("organisation-deactivated", { organisationId });

  const { verifier, nonce } = attemptSecrets(deps, input.browserSecret, state);
  let claims: Claims;
  try {
    const config = await providerConfig(deps, {
      issuer: connection.issuer,
      clientId: connection.clientId,
      clientSecret: openClientSecret(deps, connection),
    });
    const tokens = await oidc.authorizationCodeGrant(config, input.currentUrl, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
      idTokenExpected: true,
    });
    claims = { ...(tokens.claims() ?? {}) };
    // Some providers put the e-mail only in the UserInfo answer (its `sub` is checked against the token's).
    if (claims.email === undefined && config.serverMetadata().userinfo_endpoint && tokens.access_token) {
      const info = await oidc.fetchUserInfo(config, tokens.access_token, String(claims.sub));
      for (const key of ["email", "email_verified", "xms_edov", "preferred_username", "upn", "name"]) {
        if (claims[key] === undefined && info[key] !== undefined) claims[key] = info[key];
      }
    }
  } catch (err) {
    const { reason, detail } = failureReason(err);
    return refuse(reason, { organisationId, why: detail });
  }

  const issuer = String(claims.iss ?? "");
  const subject = typeof claims.sub === "string" ? claims.sub : "";
  if (issuer !== connection.issuer) return refuse("wrong-issuer", { organisationId });
  if (!subject || subject.length > 255) return refuse("invalid-token", { organisationId, why: "no sub" });
  if (issuer === GOOGLE_ISSUER && claims.hd !== organisation.domain)
    return refuse("wrong-hosted-domain", { organisationId });

  // The e-mail the token names: `email` (verified or not), else an e-mail-shaped preferred_username or upn.
  const email = normaliseEmail(claims.email);
  if (claims.email !== undefined && !email) return refuse("no-email", { organisationId, why: "email not usable" });
  // Entra ID sends no email_verified: its `xms_edov` counts, from an Entra issuer only.
  const emailVerified =
    email !== null && (claims.email_verified === true || (claims.xms_edov === true && isEntraIssuer(issuer)));
  if (email !== null && claims.email_verified === false)
    return refuse("email-unverified", { organisationId, actorEmail: email });
  const weakEmail = email ?? normaliseEmail(claims.preferred_username) ?? normaliseEmail(claims.upn);
  if (weakEmail) {
    // The domain rule: the organisation's e-mail domain or under it, and no other organisation's longer one.
    const owner = await findOrganisationOwningDomain(deps.db, emailDomain(weakEmail));
    if (owner?.id !== organisationId) return refuse("wrong-domain", { organisationId, actorEmail: weakEmail });
  }

  const refusalOf = async (user: users.UserRow): Promise<SsoFailureReason | null> => {
    if (user.organisationId !== organisationId || user.role === "admin") return "no-account";
    const refusal = await users.signInRefusal(deps.db, user);
    if (!refusal) return null;
    return refusal.reason === "deactivated" ? "account-deactivated" : "account-not-active";
  };
  const signIn = async (user: users.UserRow, how: "linked" | "first sign-in" | "created"): Promise<CallbackResult> => {
    await deps.audit.record({
      ...audit,
      outcome: "success",
      actorId: user.id,
      actorEmail: user.email,
      organisationId,
      detail: { how, issuer },
    });
    return { ok: true, userId: user.id, role: user.role };
  };

  // Afterwards: found by (iss, sub), so an e-mail changed at the provider follows.
  const linked = await users.findUserBySsoLink(deps.db, issuer, subject);
  if (linked) {
    const refusal = await refusalOf(linked);
    if (refusal) return refuse(refusal, { organisationId, actorId: linked.id, actorEmail: linked.email });
    return signIn(linked, "linked");
  }

  if (!weakEmail) return refuse("no-email", { organisationId });
  const existing = await users.findUserByEmail(deps.db, weakEmail);
  if (existing) {
    // First SSO sign-in of an existing account: only through a verified `email` claim, never for another sub.
    const who = { organisationId, actorId: existing.id, actorEmail: existing.email };
    const refusal = await refusalOf(existing);
    if (refusal) return refuse(refusal, who);
    if (!emailVerified || weakEmail !== email)
      return refuse("email-unverified", { ...who, why: "not a verified email claim" });
    if (await users.ssoLinkOf(deps.db, existing.id)) return refuse("linked-elsewhere", who);
    const made = await users.insertSsoLink(deps.db, { userId: existing.id, organisationId, issuer, subject, now });
    if (!made) return refuse("linked-elsewhere", who);
    return signIn(existing, "first sign-in");
  }

  // Just in time: a new active, verified employee of the organisation.
  if (!connection.jitProvisioning)
    return refuse("no-account", { organisationId, actorEmail: weakEmail, why: "jit off" });
  if (await hasScimToken(deps, organisationId))
    return refuse("no-account", { organisationId, actorEmail: weakEmail, why: "provisioned by SCIM" });
  const created = await deps.db.transaction(async (tx) => {
    const id = await users.insertUser(tx, {
      email: weakEmail,
      fullName: nameFrom(claims, weakEmail),
      // No password can match: the account signs in through SSO (or sets one with "Forgot your password?").
      passwordHash: `!sso-${randomToken(16)}`,
      role: "client",
      status: "active",
      organisationId,
      emailVerifiedAt: now,
      createdAt: now,
      activatedAt: now,
    });
    if (id === undefined) return undefined;
    await users.insertSsoLink(tx, { userId: id, organisationId, issuer, subject, now });
    return users.findUserById(tx, id);
  });
  // Taken meanwhile (two first sign-ins at once): the other one made the account.
  if (!created) return refuse("no-account", { organisationId, actorEmail: weakEmail, why: "e-mail taken meanwhile" });
  return signIn(created, "created");
}
