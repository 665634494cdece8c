import { type Actor, type Deps, signedIn } from "@server/context";
import { randomDigits, randomToken } from "@server/lib/crypto";
import type { HttpError } from "@server/lib/errors";
import { assertAcceptablePassword, hashPassword, verifyAgainstDummy, verifyPassword } from "@server/lib/passwords";
import { passwordResetMail, signInCodeMail, verifyEmailMail } from "@server/mail/templates";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { SIGN_IN, TOKEN_LIFETIME } from "@shared/constants";
import { ERROR_CODES } from "@shared/error-codes";
import { MESSAGES } from "@shared/messages";
import { paths } from "@shared/paths";
import { deleteSessionsOf } from "../sessions/repository";
import { authErrors } from "./errors";
import * as repo from "./repository";
import { VerificationTokens } from "./tokens";

const FORGOT_PER_IP = { limit: 10, windowMs: 15 * 60_000 };
const FORGOT_PER_ACCOUNT = { limit: 3, windowMs: 15 * 60_000 };
const VERIFY_EMAIL_TRIES = 10;
/** An unverified account that signs in with the right password gets a new link, this often at most. */
const VERIFY_RESEND = { limit: 3, windowMs: 15 * 60_000 };

const failKeys = (email: string, clientKey: string) => [`signin-fail:acct:${email}`, `signin-fail:ip:${clientKey}`];

function tokens(deps: Deps) {
  return new VerificationTokens(deps.db, deps.config.appSecret);
}

/** Why an account with the right password still may not sign in, or null. */
function signInRefusal(user: repo.UserRow): HttpError | null {
  if (user.status === "deactivated") return authErrors.accountDeactivated();
  if (!user.emailVerifiedAt) return authErrors.emailNotVerified();
  if (user.status === "pending") return authErrors.accountPending();
  return null;
}

/** Step 1: checks the password and e-mails a 6-digit code. Unknown e-mails get the wrong-password answer. */
export async function passwordStep(deps: Deps, actor: Actor, input: { email: string; password: string }) {
  const { email, password } = input;
  const now = deps.clock.now();
  const [acctKey, ipKey] = failKeys(email, actor.clientKey) as [string, string];
  const { failureWindowMs, maxFailuresPerAccount, maxFailuresPerIp } = SIGN_IN;
  const audit = { action: AUDIT_ACTIONS.login, actorEmail: email, ip: actor.ip };
  const [acct, ip] = await Promise.all([
    deps.limits.peek(acctKey, maxFailuresPerAccount, failureWindowMs, now),
    deps.limits.peek(ipKey, maxFailuresPerIp, failureWindowMs, now),
  ]);
  if (!acct.allowed || !ip.allowed) {
    await deps.audit.record({ ...audit, outcome: "denied", detail: { reason: "throttled" } });
    throw authErrors.tooManyAttempts(Math.max(acct.retryAfterSeconds, ip.retryAfterSeconds));
  }

  const user = await repo.findUserByEmail(deps.db, email);
  const ok = user ? await verifyPassword(user.passwordHash, password) : await verifyAgainstDummy(password);
  const known = { ...audit, actorId: user?.id, organisationId: user?.organisationId };
  if (!user || !ok) {
    await Promise.all([
      deps.limits.hit(acctKey, maxFailuresPerAccount, failureWindowMs, now),
      deps.limits.hit(ipKey, maxFailuresPerIp, failureWindowMs, now),
    ]);
    await deps.audit.record({
      ...known,
      outcome: "failure",
      detail: { reason: user ? "wrong password" : "unknown email" },
    });
    throw authErrors.invalidCredentials();
  }

  const refusal = signInRefusal(user);
  if (refusal) {
    if (refusal.code === ERROR_CODES.emailNotVerified) await resendVerification(deps, user, now);
    await deps.audit.record({ ...known, outcome: "denied", detail: { reason: user.status } });
    throw refusal;
  }

  const code = randomDigits(SIGN_IN.codeDigits);
  await tokens(deps).issue("sign-in", String(user.id), code, now, SIGN_IN.codeLifetimeMs);
  await deps.mailer.send(signInCodeMail(user.email, code, SIGN_IN.codeLifetimeMs / 60_000));
  await deps.audit.record({ ...known, outcome: "success", detail: { step: "password" } });
  return { message: MESSAGES.signInCodeSent };
}

/**
 * Step 2: checks the e-mailed code (5 tries, then void). Returns the user the route starts a session for.
 */
export async function codeStep(deps: Deps, actor: Actor, input: { email: string; code: string }) {
  const { email, code } = input;
  const now = deps.clock.now();
  const user = await repo.findUserByEmail(deps.db, email);
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
    await deps.audit.record({ ...audit, outcome: "failure", detail: { reason: result } });
    throw result === "exhausted" ? authErrors.codeExhausted() : authErrors.invalidCode();
  }
  const refusal = signInRefusal(user);
  if (refusal) {
    await deps.audit.record({ ...audit, outcome: "denied", detail: { reason: user.status } });
    throw refusal;
  }
  await deps.limits.reset(`signin-fail:acct:${user.email}`);
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

/** E-mails a reset link to an existing account; the answer is the same for unknown e-mails. */
export async function forgotPassword(deps: Deps, actor: Actor, input: { email: string }) {
  const { email } = input;
  const now = deps.clock.now();
  const ip = await deps.limits.hit(`forgot:ip:${actor.clientKey}`, FORGOT_PER_IP.limit, FORGOT_PER_IP.windowMs, now);
  if (!ip.allowed) throw authErrors.tooManyAttempts(ip.retryAfterSeconds);
  const user = await repo.findUserByEmail(deps.db, email);
  let outcome: "success" | "failure" | "denied" = "failure";
  if (user && user.status !== "deactivated") {
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
  });
  return { message: MESSAGES.resetLinkSent };
}

/** Sets a new password from a reset link; every session of that user ends. */
export async function resetPassword(deps: Deps, actor: Actor, input: { token: string; newPassword: string }) {
  await assertAcceptablePassword(input.newPassword);
  const now = deps.clock.now();
  const target = await tokens(deps).consume("reset-password", input.token, now);
  const user = target ? await repo.findUserById(deps.db, Number(target)) : undefined;
  const action = AUDIT_ACTIONS.resetPassword;
  if (!user || user.status === "deactivated") {
    await deps.audit.record({ action, outcome: "failure", ip: actor.ip, detail: { reason: "invalid link" } });
    throw authErrors.invalidResetLink();
  }
  await repo.setPasswordHash(deps.db, user.id, await hashPassword(input.newPassword));
  await deleteSessionsOf(deps.db, user.id);
  await tokens(deps).revoke("sign-in", String(user.id));
  await deps.limits.reset(`signin-fail:acct:${user.email}`);
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
async function resendVerification(deps: Deps, user: repo.UserRow, now: Date) {
  const { limit, windowMs } = VERIFY_RESEND;
  if ((await deps.limits.hit(`verify-resend:${user.id}`, limit, windowMs, now)).allowed) {
    await sendVerificationEmail(deps, user);
  }
}

/** Marks the e-mail verified; an employer stays pending until an admin activates it. */
export async function verifyEmail(deps: Deps, actor: Actor, input: { email: string; token: string }) {
  const { email, token } = input;
  const now = deps.clock.now();
  const user = await repo.findUserByEmail(deps.db, email);
  const result = user
    ? await tokens(deps).attempt("verify-email", String(user.id), token, now, VERIFY_EMAIL_TRIES)
    : "missing";
  const audit = { action: AUDIT_ACTIONS.verifyEmail, actorId: user?.id, actorEmail: email, ip: actor.ip };
  if (!user || result !== "ok" || user.status === "deactivated") {
    await deps.audit.record({ ...audit, outcome: "failure", detail: { reason: result } });
    throw authErrors.invalidVerificationLink();
  }
  await repo.markEmailVerified(deps.db, user.id, now);
  await deps.audit.record({ ...audit, outcome: "success", organisationId: user.organisationId });
  return { role: user.role, pending: user.status === "pending" };
}
