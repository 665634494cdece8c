import { createHmac } from "node:crypto";
import { type Actor, auditActor, type Deps, signedIn, signedInSession } from "@server/context";
import { ssoErrors, ssoRequiredFor } from "@server/features/sso";
import { assertRecentSignIn, findAccountUser, signInRefusal, usersErrors } from "@server/features/users";
import { refuse } from "@server/lib/audit";
import { sha256 } from "@server/lib/crypto";
import { auditsRefusal } from "@server/lib/rate-limit";
import { ACCOUNT_TEXT, deviceLabel, PASSKEY } from "@shared/account";
import { AUDIT_ACTIONS, type AuditAction } from "@shared/audit-actions";
import type { Role } from "@shared/constants";
import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import { accountErrors } from "./errors";
import { passkeyAddedMail } from "./mails";
import {
  type ChallengePurpose,
  challengeRefusal,
  consumeChallenge,
  countPasskeys,
  deletePasskey,
  findPasskeyByCredentialId,
  insertChallenge,
  insertPasskey,
  listPasskeys,
  recordPasskeyUse,
  renamePasskey,
} from "./repository";
import { sendNotice } from "./service";

const RP_NAME = "CallProof";
/** ES256 and RS256: what platform authenticators and security keys offer. */
const ALGORITHMS = [-7, -257];

/** The relying party: the host of PUBLIC_URL, and its origin as the only accepted origin. */
function relyingParty(deps: Deps) {
  return { id: new URL(deps.config.publicUrl).hostname, origin: deps.config.publicOrigin };
}

/** The WebAuthn user handle: stable per user, reveals nothing about the account. */
function userHandle(deps: Deps, userId: number): Uint8Array<ArrayBuffer> {
  const digest = createHmac("sha256", deps.config.appSecret).update(`webauthn-user\0${userId}`).digest();
  return new Uint8Array(digest);
}

const toBase64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");

/** The challenge an authenticator signed, read from the client data (empty when unreadable). */
function signedChallenge(clientDataJSON: string): string {
  try {
    const data: unknown = JSON.parse(Buffer.from(clientDataJSON, "base64url").toString("utf8"));
    const challenge = data && typeof data === "object" ? (data as { challenge?: unknown }).challenge : undefined;
    return typeof challenge === "string" ? challenge.slice(0, 512) : "";
  } catch {
    return "";
  }
}

/**
 * A challenge check for the WebAuthn library: the challenge the authenticator signed must be one
 * we issued for this purpose and binding, still unused and unexpired; checking uses it up.
 */
function challengeCheck(deps: Deps, purpose: ChallengePurpose, binding: string, userId: number | null, now: Date) {
  return (challenge: string) =>
    consumeChallenge(deps.db, { challengeHash: sha256(challenge), purpose, binding, userId, now });
}

async function issueChallenge(
  deps: Deps,
  challenge: string,
  purpose: ChallengePurpose,
  binding: string,
  userId: number | null,
  now: Date,
) {
  await insertChallenge(deps.db, {
    challengeHash: sha256(challenge),
    purpose,
    binding,
    userId,
    now,
    lifetimeMs: PASSKEY.challengeLifetimeMs,
  });
}

/** The library's error text for the log; never shown to the client. */
const reasonOf = (err: unknown) => (err instanceof Error ? err.message.slice(0, 200) : "verification failed");

// ---------------------------------------------------------------------------------------------
// Adding, renaming and removing passkeys (signed in)
// ---------------------------------------------------------------------------------------------

/** Options for navigator.credentials.create(): a discoverable credential with user verification. */
export async function registrationOptions(deps: Deps, actor: Actor, input: { sessionHash: string | null }) {
  const { user, sessionHash } = signedInSession(actor, input.sessionHash);
  const now = deps.clock.now();
  await assertFreshForPasskey(deps, actor, sessionHash);
  const { registerOptionsPerWindow, registerOptionsWindowMs } = PASSKEY;
  const limit = await deps.limits.hit(
    `passkey-register:${user.id}`,
    registerOptionsPerWindow,
    registerOptionsWindowMs,
    now,
  );
  if (!limit.allowed) throw accountErrors.tooManyAttempts(limit.retryAfterSeconds);
  const rp = relyingParty(deps);
  const existing = await listPasskeys(deps.db, user.id);
  const options = await generateRegistrationOptions({
    rpName: RP_NAME,
    rpID: rp.id,
    userName: user.email,
    userDisplayName: user.fullName,
    userID: userHandle(deps, user.id),
    timeout: PASSKEY.challengeLifetimeMs,
    attestationType: "none",
    excludeCredentials: existing.map((k) => ({ id: k.credentialId, transports: k.transports })),
    authenticatorSelection: { residentKey: "required", userVerification: "required" },
    supportedAlgorithmIDs: ALGORITHMS,
  });
  await issueChallenge(deps, options.challenge, "register", sessionHash, user.id, now);
  return options;
}

/** Adding a passkey needs a fresh sign-in (the account feature's rule for sensitive changes). */
const assertFreshForPasskey = (deps: Deps, actor: Actor, sessionHash: string) =>
  assertRecentSignIn(deps, actor, sessionHash, {
    action: AUDIT_ACTIONS.addPasskey,
  });

/** Verifies a new passkey against a challenge this session was given, stores it and tells the user by e-mail. */
export async function addPasskey(
  deps: Deps,
  actor: Actor,
  input: {
    sessionHash: string | null;
    response: RegistrationResponseJSON;
    name?: string | undefined;
    userAgent?: string;
  },
) {
  const { user, sessionHash } = signedInSession(actor, input.sessionHash);
  const now = deps.clock.now();
  const audit = { ...auditActor(actor), action: AUDIT_ACTIONS.addPasskey };
  await assertFreshForPasskey(deps, actor, sessionHash);
  const rp = relyingParty(deps);
  let verification: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    verification = await verifyRegistrationResponse({
      response: input.response,
      expectedChallenge: challengeCheck(deps, "register", sessionHash, user.id, now),
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: true,
      supportedAlgorithmIDs: ALGORITHMS,
    });
  } catch (err) {
    return refuseRegistration(deps, audit, input.response.response.clientDataJSON, sessionHash, now, err);
  }
  if (!verification.verified) {
    return refuse(
      deps,
      { ...audit, outcome: "failure", detail: { reason: "not verified" } },
      accountErrors.passkeyRegistrationFailed(),
    );
  }
  const info = verification.registrationInfo;
  const name = input.name ?? (await defaultName(deps, user.id, input.userAgent));
  const row = await insertPasskey(deps.db, {
    userId: user.id,
    credentialId: info.credential.id,
    publicKey: toBase64url(info.credential.publicKey),
    userHandle: toBase64url(userHandle(deps, user.id)),
    counter: info.credential.counter,
    transports: (info.credential.transports ?? []).slice(0, 10),
    backupEligible: info.credentialDeviceType === "multiDevice",
    backedUp: info.credentialBackedUp,
    name,
    createdAt: now,
  });
  if (!row) {
    return refuse(
      deps,
      { ...audit, outcome: "failure", detail: { reason: "already registered" } },
      accountErrors.passkeyAlreadyRegistered(),
    );
  }
  await deps.audit.record({
    ...audit,
    outcome: "success",
    target: String(row.id),
    detail: { name, backupEligible: row.backupEligible, backedUp: row.backedUp },
  });
  await sendNotice(deps, passkeyAddedMail(user.email, name, now, actor.ip));
  return { id: row.id, name: row.name, createdAt: row.createdAt.toISOString(), lastUsedAt: null };
}

async function refuseRegistration(
  deps: Deps,
  audit: ReturnType<typeof auditActor> & { action: AuditAction },
  clientDataJSON: string,
  binding: string,
  now: Date,
  err: unknown,
): Promise<never> {
  const challenge = signedChallenge(clientDataJSON);
  const refusal = challenge ? await challengeRefusal(deps.db, sha256(challenge), "register", binding, now) : "unknown";
  const challengeProblem = /challenge/i.test(reasonOf(err));
  return refuse(
    deps,
    { ...audit, outcome: "failure", detail: { reason: challengeProblem ? `challenge ${refusal}` : reasonOf(err) } },
    challengeProblem ? accountErrors.passkeyChallengeInvalid() : accountErrors.passkeyRegistrationFailed(),
  );
}

/** "Chrome on macOS", or "Passkey 2" when the device is unknown. */
async function defaultName(deps: Deps, userId: number, userAgent: string | undefined) {
  const device = deviceLabel(userAgent);
  if (device !== "Unknown device") return device.slice(0, PASSKEY.nameMaxLength);
  return `Passkey ${(await countPasskeys(deps.db, userId)) + 1}`;
}

export async function renameUserPasskey(deps: Deps, actor: Actor, input: { id: number; name: string }) {
  const user = signedIn(actor);
  const row = await renamePasskey(deps.db, user.id, input.id, input.name);
  if (!row) throw accountErrors.passkeyNotFound();
  await deps.audit.record({
    ...auditActor(actor),
    action: AUDIT_ACTIONS.renamePasskey,
    outcome: "success",
    target: String(row.id),
    detail: { name: row.name },
  });
  return { message: ACCOUNT_TEXT.passkeyRenamed };
}

export async function removeUserPasskey(deps: Deps, actor: Actor, input: { id: number }) {
  const user = signedIn(actor);
  const row = await deletePasskey(deps.db, user.id, input.id);
  if (!row) throw accountErrors.passkeyNotFound();
  await deps.audit.record({
    ...auditActor(actor),
    action: AUDIT_ACTIONS.removePasskey,
    outcome: "success",
    target: String(row.id),
    detail: { name: row.name },
  });
  return { message: ACCOUNT_TEXT.passkeyRemoved };
}

// ---------------------------------------------------------------------------------------------
// Signing in with a passkey (signed out)
// ---------------------------------------------------------------------------------------------

/**
 * Options for navigator.credentials.get() with no credential list (discoverable credentials, so no
 * e-mail is needed first). The challenge is bound to `binding`: the hash of this browser's
 * pre-session cookie. Limited per client address so a flood cannot fill the table.
 */
export async function signInOptions(deps: Deps, actor: Actor, input: { binding: string }) {
  const now = deps.clock.now();
  const { signInOptionsPerWindow, signInOptionsWindowMs } = PASSKEY;
  const limit = await deps.limits.hit(
    `passkey-sign-in:ip:${actor.clientKey}`,
    signInOptionsPerWindow,
    signInOptionsWindowMs,
    now,
  );
  if (!limit.allowed) throw accountErrors.tooManyAttempts(limit.retryAfterSeconds);
  const options = await generateAuthenticationOptions({
    rpID: relyingParty(deps).id,
    userVerification: "required",
    timeout: PASSKEY.challengeLifetimeMs,
  });
  await issueChallenge(deps, options.challenge, "sign-in", input.binding, null, now);
  return options;
}

/**
 * Signs in with a passkey, on its own (no password, no e-mailed code): the assertion must answer a
 * challenge this browser was given, come from our origin and relying party, carry user
 * verification, match a registered passkey's key and move its counter forward. The account must
 * be active and verified. Returns the user to start the session for.
 */
export async function signInWithPasskey(
  deps: Deps,
  actor: Actor,
  input: { binding: string | null; response: AuthenticationResponseJSON },
): Promise<{ userId: number; role: Role }> {
  const now = deps.clock.now();
  const base = { action: AUDIT_ACTIONS.passkeySignIn, ip: actor.ip };
  // Counted before any work or write (a flood of forged assertions must not grow the audit log), given
  // back when the sign-in succeeds; refusals are audited 1st, 10th, 100th…
  const triesKey = `passkey-verify:ip:${actor.clientKey}`;
  const tries = await deps.limits.hit(triesKey, PASSKEY.signInTriesPerWindow, PASSKEY.signInOptionsWindowMs, now);
  if (!tries.allowed) {
    if (auditsRefusal(tries.refused)) {
      await deps.audit.record({ ...base, outcome: "denied", detail: { reason: "throttled", refused: tries.refused } });
    }
    throw accountErrors.tooManyAttempts(tries.retryAfterSeconds);
  }
  const binding = input.binding ?? "";
  const passkey = await findPasskeyByCredentialId(deps.db, input.response.id);
  if (!passkey) {
    // The challenge is used up either way, so an unknown credential cannot be retried with it.
    const challenge = signedChallenge(input.response.response.clientDataJSON);
    if (challenge) await challengeCheck(deps, "sign-in", binding, null, now)(challenge);
    await deps.audit.record({ ...base, outcome: "failure", detail: { reason: "unknown passkey" } });
    throw accountErrors.passkeyUnknown();
  }
  const user = await findAccountUser(deps.db, passkey.userId);
  const who = { ...base, actorId: passkey.userId, actorEmail: user?.email, organisationId: user?.organisationId };
  const rp = relyingParty(deps);
  let result: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
  try {
    result = await verifyAuthenticationResponse({
      response: input.response,
      expectedChallenge: challengeCheck(deps, "sign-in", binding, null, now),
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      // The stored counter is compared below, after the signature is known to be good.
      credential: { id: passkey.credentialId, publicKey: Buffer.from(passkey.publicKey, "base64url"), counter: 0 },
      requireUserVerification: true,
    });
  } catch (err) {
    const reason = reasonOf(err);
    if (/challenge/i.test(reason)) {
      const challenge = signedChallenge(input.response.response.clientDataJSON);
      const refusal = challenge
        ? await challengeRefusal(deps.db, sha256(challenge), "sign-in", binding, now)
        : "unknown";
      await deps.audit.record({
        ...who,
        outcome: "failure",
        target: String(passkey.id),
        detail: { reason: `challenge ${refusal}` },
      });
      throw accountErrors.passkeyChallengeInvalid();
    }
    await deps.audit.record({ ...who, outcome: "failure", target: String(passkey.id), detail: { reason } });
    throw accountErrors.passkeySignInFailed();
  }
  if (!result.verified) {
    await deps.audit.record({
      ...who,
      outcome: "failure",
      target: String(passkey.id),
      detail: { reason: "not verified" },
    });
    throw accountErrors.passkeySignInFailed();
  }
  const handle = input.response.response.userHandle;
  if (handle !== undefined && handle !== passkey.userHandle) {
    await deps.audit.record({
      ...who,
      outcome: "failure",
      target: String(passkey.id),
      detail: { reason: "user handle mismatch" },
    });
    throw accountErrors.passkeySignInFailed();
  }
  const { newCounter, credentialBackedUp } = result.authenticationInfo;
  const advanced = await recordPasskeyUse(deps.db, passkey.id, {
    counter: newCounter,
    backedUp: credentialBackedUp,
    at: now,
  });
  if (!advanced) {
    // A counter that goes backwards means the key may have been cloned.
    await deps.audit.record({
      ...who,
      outcome: "denied",
      target: String(passkey.id),
      detail: { reason: "counter went backwards", storedCounter: passkey.counter, receivedCounter: newCounter },
    });
    throw accountErrors.passkeySignInFailed();
  }
  const refusal = await signInRefusal(deps.db, user);
  if (refusal || !user) {
    await deps.audit.record({
      ...who,
      outcome: "denied",
      target: String(passkey.id),
      detail: { reason: refusal?.reason ?? "deactivated" },
    });
    throw refusal?.error ?? usersErrors.accountDeactivated();
  }
  if (await ssoRequiredFor(deps, user)) {
    await deps.audit.record({
      ...who,
      outcome: "denied",
      target: String(passkey.id),
      detail: { reason: "sso required" },
    });
    throw ssoErrors.required();
  }
  await deps.limits.release(triesKey, now);
  await deps.audit.record({
    ...who,
    outcome: "success",
    target: String(passkey.id),
    detail: { backedUp: credentialBackedUp },
  });
  return { userId: user.id, role: user.role };
}
