import { type Actor, type Deps, signedIn } from "@server/context";
import { emailDomainProved } from "@server/features/sites";
import { ssoErrors, ssoRequiredFor } from "@server/features/sso";
import * as users from "@server/features/users";
import { refuse } from "@server/lib/audit";
import { randomDigits, randomToken } from "@server/lib/crypto";
import { assertAcceptablePassword, hashPassword, verifyAgainstDummy, verifyPassword } from "@server/lib/passwords";
import { auditsRefusal } from "@server/lib/rate-limit";
import { passwordResetMail, signInCodeMail, verifyEmailMail } from "@server/mail/templates";
import type { AuditAction } from "@shared/audit-actions";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { SIGN_IN, TOKEN_LIFETIME } from "@shared/constants";
import { MESSAGES } from "@shared/messages";
import { emailDomain } from "@shared/onboarding";
import { paths } from "@shared/paths";
import { authErrors } from "./errors";
import { liveTokenExists } from "./repository";

import {
  codeAttemptsBlocked,
  forgetAccountFailures,
  reserveCodeAttempt,
  reservePasswordAttempt,
} from "./sign-in-limits";
import { VerificationTokens } from "./tokens";

export const FORGOT_PER_IP = { limit: 10, windowMs: 15 * 60_000 };
const FORGOT_PER_ACCOUNT = { limit: 3, windowMs: 15 * 60_000 };
/** reset-password per client address: a link is unguessable; this stops a flood (and its audit rows). */
export const RESET_PER_IP = { limit: 10, windowMs: 15 * 60_000 };
/** verify-email per client address: the links are unguessable, this only stops a flood (and its audit rows). */
export const VERIFY_EMAIL_PER_IP = { limit: 10, windowMs: 15 * 60_000 };
/** A verification link is not used up by wrong tries (a count that fits the tries column). */
const UNLIMITED_TRIES = 2_000_000_000;
/** An unverified account that signs in with the right password gets a new link, this often at most. */
const VERIFY_RESEND = { limit: 3, windowMs: 15 * 60_000 };

function tokens(deps: Deps) {
  return new VerificationTokens(deps.db, deps.config.appSecret);
}

/** Audits a throttled sign-in step: the 1st, 10th, 100th… refusal in a row; the others are only counted. */
async function auditThrottled(deps: Deps, actor: Actor, action: AuditAction, email: string, refused: number) {
  if (!auditsRefusal(refused)) return;
  await deps.audit.record({
    action,
    outcome: "denied",
    actorEmail: email,
    ip: actor.ip,
    detail: { reason: "throttled", refused },
  });
}

/**
 * Step 1: checks the password and e-mails a 6-digit code. Unknown e-mails get the wrong-password answer.
 * The attempt is counted before the hash is checked (and given back when the password is right), so
 * parallel guesses cannot exceed the limits; an account or IP blocked by wrong codes is refused too.
 */
export async function passwordStep(deps: Deps, actor: Actor, input: { email: string; password: string }) {
  const { email, password } = input;
  const now = deps.clock.now();
  const audit = { action: AUDIT_ACTIONS.login, actorEmail: email, ip: actor.ip };
  const blocked = await codeAttemptsBlocked(deps, email, actor.clientKey, now);
  if (blocked) throw authErrors.tooManyAttempts(blocked.retryAfterSeconds);
  const attempt = await reservePasswordAttempt(deps, email, actor.clientKey, now);
  if (!attempt.allowed) {
    await auditThrottled(deps, actor, AUDIT_ACTIONS.login, email, attempt.refused);
    throw authErrors.tooManyAttempts(attempt.retryAfterSeconds);
  }

  const user = await users.findUserByEmail(deps.db, email);
  const ok = user ? await verifyPassword(user.passwordHash, password) : await verifyAgainstDummy(password);
  const known = { ...audit, actorId: user?.id, organisationId: user?.organisationId };
  if (!user || !ok) {
    await deps.audit.record({
      ...known,
      outcome: "failure",
      detail: { reason: user ? "wrong password" : "unknown email" },
    });
    throw authErrors.invalidCredentials();
  }
  await attempt.giveBack();

  const refusal = await users.signInRefusal(deps.db, user);
  if (refusal) {
    if (refusal.reason === "unverified") await resendVerification(deps, user, now);
    await deps.audit.record({ ...known, outcome: "denied", detail: { reason: user.status } });
    throw refusal.error;
  }
  // Enforced single sign-on: said only after the right password, so it tells a stranger nothing.
  if (await ssoRequiredFor(deps, user)) {
    await deps.audit.record({ ...known, outcome: "denied", detail: { reason: "sso required" } });
    throw ssoErrors.required();
  }

  const code = randomDigits(SIGN_IN.codeDigits);
  await tokens(deps).issue("sign-in", String(user.id), code, now, SIGN_IN.codeLifetimeMs);
  await deps.mailer.send(signInCodeMail(user.email, code, SIGN_IN.codeLifetimeMs / 60_000));
  await deps.audit.record({ ...known, outcome: "success", detail: { step: "password" } });
  return { message: MESSAGES.signInCodeSent };
}

/**
 * Step 2: checks the e-mailed code (5 tries, then void). Returns the user the route starts a session for.
 * Wrong codes count per account and per IP across codes; every failure gets the same answer, so it
 * tells nothing about the account (whether it exists, or signed in recently).
 */
export async function codeStep(deps: Deps, actor: Actor, input: { email: string; code: string }) {
  const { email, code } = input;
  const now = deps.clock.now();
  const user = await users.findUserByEmail(deps.db, email);
  const pending = user ? await liveTokenExists(deps.db, "sign-in", String(user.id), now) : false;
  const attempt = await reserveCodeAttempt(deps, email, actor.clientKey, now, pending);
  if (!attempt.allowed) {
    await auditThrottled(deps, actor, AUDIT_ACTIONS.verify2fa, email, attempt.refused);
    throw authErrors.tooManyAttempts(attempt.retryAfterSeconds);
  }
  const result = user
    ? await tokens(deps).attempt("sign-in", String(user.id), code, now, SIGN_IN.codeMaxTries)
    : "missing";
  const audit = {
    action: AUDIT_ACTIONS.verify2fa,
    actorId: user?.id,
    actorEmail: email,
    organisationId: user?.organisationId,
    ip: actor.ip,
  };
  if (!user || result !== "ok") {
    return refuse(deps, { ...audit, outcome: "failure", detail: { reason: result } }, authErrors.invalidCode());
  }
  await attempt.giveBack();
  const refusal = await users.signInRefusal(deps.db, user);
  if (refusal) {
    return refuse(deps, { ...audit, outcome: "denied", detail: { reason: user.status } }, refusal.error);
  }
  if (await ssoRequiredFor(deps, user)) {
    return refuse(deps, { ...audit, outcome: "denied", detail: { reason: "sso required" } }, ssoErrors.required());
  }
  await forgetAccountFailures(deps, user.email);
  await deps.audit.record({ ...audit, outcome: "success" });
  return { userId: user.id, role: user.role };
}

/** Records a sign-out (the route has ended the session). */
export async function signOut(deps: Deps, actor: Actor) {
  const user = signedIn(actor);
  await deps.audit.record({
    action: AUDIT_ACTIONS.logout,
    outcome: "success",
    actorId: user.id,
    actorEmail: user.email,
    organisationId: user.organisationId,
    ip: actor.ip,
  });
  return { message: MESSAGES.signedOut };
}

/**
 * E-mails a reset link to an existing account; the answer is the same for unknown e-mails and comes
 * before any mail work (the link is issued and sent in the background), so its timing tells nothing.
 */
export async function forgotPassword(deps: Deps, actor: Actor, input: { email: string }) {
  const { email } = input;
  const now = deps.clock.now();
  const ip = await deps.limits.hit(`forgot:ip:${actor.clientKey}`, FORGOT_PER_IP.limit, FORGOT_PER_IP.windowMs, now);
  if (!ip.allowed) throw authErrors.tooManyAttempts(ip.retryAfterSeconds);
  deps.background.run("password reset mail", () => sendResetLink(deps, actor, email, now));
  return { message: MESSAGES.resetLinkSent };
}

async function sendResetLink(deps: Deps, actor: Actor, email: string, now: Date) {
  const user = await users.findUserByEmail(deps.db, email);
  let outcome: "success" | "failure" | "denied" = "failure";
  // Enforced single sign-on: the same answer as for an unknown e-mail, and no mail.
  const ssoOnly = user ? await ssoRequiredFor(deps, user) : false;
  if (ssoOnly) outcome = "denied";
  else if (user && user.status !== "deactivated") {
    const { limit, windowMs } = FORGOT_PER_ACCOUNT;
    const acct = await deps.limits.hit(`forgot:acct:${user.id}`, limit, windowMs, now);
    if (acct.allowed) {
      const token = randomToken(32);
      await tokens(deps).issue("reset-password", String(user.id), token, now, TOKEN_LIFETIME.passwordResetMs);
      const url = `${deps.config.publicUrl}${paths.resetPassword}?token=${token}`;
      await deps.mailer.send(passwordResetMail(user.email, url, TOKEN_LIFETIME.passwordResetMs / 60_000));
      outcome = "success";
    } else outcome = "denied";
  }
  await deps.audit.record({
    action: AUDIT_ACTIONS.forgotPassword,
    outcome,
    actorId: user?.id,
    actorEmail: email,
    organisationId: user?.organisationId,
    ip: actor.ip,
    ...(ssoOnly ? { detail: { reason: "sso required" } } : {}),
  });
}

/** Sets a new password from a reset link; every session of that user ends. */
export async function resetPassword(deps: Deps, actor: Actor, input: { token: string; newPassword: string }) {
  await assertAcceptablePassword(input.newPassword);
  const now = deps.clock.now();
  const action = AUDIT_ACTIONS.resetPassword;
  // Counted before any work or write, so a flood of made-up links cannot grow the audit log.
  const { limit, windowMs } = RESET_PER_IP;
  const allowance = await deps.limits.hit(`reset-password:ip:${actor.clientKey}`, limit, windowMs, now);
  if (!allowance.allowed) {
    if (auditsRefusal(allowance.refused)) {
      await deps.audit.record({
        action,
        outcome: "denied",
        ip: actor.ip,
        detail: { reason: "throttled", refused: allowance.refused },
      });
    }
    throw authErrors.tooManyAttempts(allowance.retryAfterSeconds);
  }
  const target = await tokens(deps).consume("reset-password", input.token, now);
  const user = target ? await users.findUserById(deps.db, Number(target)) : undefined;
  if (!user || user.status === "deactivated") {
    await deps.audit.record({ action, outcome: "failure", ip: actor.ip, detail: { reason: "invalid link" } });
    throw authErrors.invalidResetLink();
  }
  // A link mailed before the organisation required single sign-on sets no password now.
  if (await ssoRequiredFor(deps, user)) {
    const who = { actorId: user.id, actorEmail: user.email, organisationId: user.organisationId };
    await deps.audit.record({ action, outcome: "denied", ip: actor.ip, ...who, detail: { reason: "sso required" } });
    throw ssoErrors.required();
  }
  await users.setPasswordHash(deps.db, user.id, await hashPassword(input.newPassword));
  await users.deleteSessionsOf(deps.db, user.id);
  await tokens(deps).revoke("sign-in", String(user.id));
  await forgetAccountFailures(deps, user.email);
  await deps.audit.record({
    action,
    outcome: "success",
    actorId: user.id,
    actorEmail: user.email,
    organisationId: user.organisationId,
    ip: actor.ip,
  });
  return { message: MESSAGES.passwordReset };
}

/** Issues an e-mail verification token for a new account and mails its link. */
export async function sendVerificationEmail(deps: Deps, user: { id: number; email: string }) {
  const token = randomToken(32);
  const lifetime = TOKEN_LIFETIME.emailVerificationMs;
  await tokens(deps).issue("verify-email", String(user.id), token, deps.clock.now(), lifetime);
  const url = `${deps.config.publicUrl}${paths.verifyEmail}?email=${encodeURIComponent(user.email)}&token=${token}`;
  await deps.mailer.send(verifyEmailMail(user.email, url, lifetime / 3_600_000));
}

/**
 * A new verification link for an account whose link was lost, expired or never sent (mail down at
 * sign-up). Only after the right password, so it cannot be used to mail strangers; rate-limited.
 */
async function resendVerification(deps: Deps, user: users.UserRow, now: Date) {
  const { limit, windowMs } = VERIFY_RESEND;
  if ((await deps.limits.hit(`verify-resend:${user.id}`, limit, windowMs, now)).allowed) {
    await sendVerificationEmail(deps, user);
  }
}

/**
 * "Resend verification e-mail": a new link for an account whose e-mail is not verified yet. The answer
 * is the same for every address and comes before any mail work, so it tells nothing about accounts;
 * at most 10 asks per IP and 3 mails per account in 15 minutes. Earlier links stay valid until they expire.
 */
export async function resendVerificationEmail(deps: Deps, actor: Actor, input: { email: string }) {
  const now = deps.clock.now();
  const ip = await deps.limits.hit(
    `verify-resend:ip:${actor.clientKey}`,
    FORGOT_PER_IP.limit,
    FORGOT_PER_IP.windowMs,
    now,
  );
  if (!ip.allowed) throw authErrors.tooManyAttempts(ip.retryAfterSeconds);
  // The answer must not depend on the account, nor wait for the mail: the work runs after it.
  deps.background.run("verification mail", async () => {
    const user = await users.findUserByEmail(deps.db, input.email);
    const waiting = user && !user.emailVerifiedAt && user.status !== "deactivated";
    if (waiting) await resendVerification(deps, user, now);
    await deps.audit.record({
      action: AUDIT_ACTIONS.resendVerification,
      outcome: waiting ? "success" : "failure",
      actorId: user?.id,
      actorEmail: input.email,
      organisationId: user?.organisationId,
      ip: actor.ip,
    });
  });
  return { message: MESSAGES.verificationResent };
}

/** Marks the e-mail verified; an employer stays pending until an admin activates it. */
export async function verifyEmail(deps: Deps, actor: Actor, input: { email: string; token: string }) {
  const { email, token } = input;
  const now = deps.clock.now();
  const audit = { action: AUDIT_ACTIONS.verifyEmail, actorEmail: email, ip: actor.ip };
  const { limit, windowMs } = VERIFY_EMAIL_PER_IP;
  const allowance = await deps.limits.hit(`verify-email:ip:${actor.clientKey}`, limit, windowMs, now);
  if (!allowance.allowed) {
    if (auditsRefusal(allowance.refused)) {
      await deps.audit.record({
        ...audit,
        outcome: "denied",
        detail: { reason: "throttled", refused: allowance.refused },
      });
    }
    throw authErrors.tooManyAttempts(allowance.retryAfterSeconds);
  }
  const user = await users.findUserByEmail(deps.db, email);
  // The same work for a known and an unknown address; a wrong link, whoever sends it, never uses up the
  // real one (its 32 random bytes cannot be guessed; the limit above stops floods).
  const result = await tokens(deps).attempt("verify-email", String(user?.id ?? 0), token, now, UNLIMITED_TRIES);
  if (!user || result !== "ok" || user.status === "deactivated") {
    await deps.audit.record({ ...audit, actorId: user?.id, outcome: "failure", detail: { reason: result } });
    throw authErrors.invalidVerificationLink();
  }
  await users.markEmailVerified(deps.db, user.id, now);
  if (user.organisationId !== null)
    await emailDomainProved(deps.db, {
      organisationId: user.organisationId,
      emailDomain: emailDomain(user.email),
      now,
    });
  await deps.audit.record({ ...audit, actorId: user.id, outcome: "success", organisationId: user.organisationId });
  return { role: user.role, pending: user.status === "pending" };
}
