import { users } from "@server/db/schema";
import { randomDigits, randomToken } from "@server/lib/crypto";
import { badRequest, forbidden, tooManyRequests, unauthorized } from "@server/lib/errors";
import { hashPassword, isCommonPassword, verifyAgainstDummy, verifyPassword } from "@server/lib/passwords";
import { auditsRefusal } from "@server/lib/rate-limit";
import { passwordResetMail, signInCodeMail, verifyEmailMail } from "@server/mail/templates";
import { endAllSessions, endSession, startSession } from "@server/plugins/session";
import type { App } from "@server/types";
import { SIGN_IN, TOKEN_LIFETIME } from "@shared/constants";
import { MESSAGES } from "@shared/messages";
import { emailDomain } from "@shared/onboarding";
import { paths } from "@shared/paths";
import { eq } from "drizzle-orm";
import type { FastifyReply, FastifyRequest } from "fastify";
import { emailDomainProved } from "../sites/service";
import {
  codeAttemptsBlocked,
  forgetAccountFailures,
  reserveCodeAttempt,
  reservePasswordAttempt,
} from "./sign-in-limits";
import { VerificationTokens } from "./tokens";
import { findUserByEmail, findUserById, type UserRow } from "./users";

const FORGOT_PER_IP = { limit: 10, windowMs: 15 * 60_000 };
const FORGOT_PER_ACCOUNT = { limit: 3, windowMs: 15 * 60_000 };
const VERIFY_EMAIL_TRIES = 10;
/** An unverified account that signs in with the right password gets a new link, this often at most. */
const VERIFY_RESEND = { limit: 3, windowMs: 15 * 60_000 };

function tokens(app: App) {
  return new VerificationTokens(app.db, app.config.appSecret);
}

/** Refuses a weak or common new password with the message of the form it came from. */
export async function assertAcceptablePassword(password: string) {
  if (await isCommonPassword(password)) throw badRequest(MESSAGES.passwordTooCommon);
}

/** Why an account with the right password still may not sign in, or null. */
function signInRefusal(user: UserRow): string | null {
  if (user.status === "deactivated") return MESSAGES.accountDeactivated;
  if (!user.emailVerifiedAt) return MESSAGES.emailNotVerified;
  if (user.status === "pending") return MESSAGES.accountPending;
  return null;
}

/** Audits a throttled sign-in step: the 1st, 10th, 100th… refusal in a row; the others are only counted. */
async function auditThrottled(app: App, request: FastifyRequest, action: string, email: string, refused: number) {
  if (!auditsRefusal(refused)) return;
  await app.audit.record({
    action,
    outcome: "denied",
    actorEmail: email,
    ip: request.ip,
    detail: { reason: "throttled", refused },
  });
}

/**
 * Step 1: checks the password and e-mails a 6-digit code. Unknown e-mails get the wrong-password answer.
 * The attempt is counted before the hash is checked (and given back when the password is right), so
 * parallel guesses cannot exceed the limits; an account or IP blocked by wrong codes is refused too.
 */
export async function passwordStep(app: App, request: FastifyRequest, email: string, password: string) {
  const now = app.clock.now();
  const blocked = await codeAttemptsBlocked(app.limits, email, request.clientKey, now);
  if (blocked) throw tooManyRequests(MESSAGES.tooManyAttempts, blocked.retryAfterSeconds);
  const attempt = await reservePasswordAttempt(app.limits, email, request.clientKey, now);
  if (!attempt.allowed) {
    await auditThrottled(app, request, "auth.login", email, attempt.refused);
    throw tooManyRequests(MESSAGES.tooManyAttempts, attempt.retryAfterSeconds);
  }

  const user = await findUserByEmail(app.db, email);
  const ok = user ? await verifyPassword(user.passwordHash, password) : await verifyAgainstDummy(password);
  if (!user || !ok) {
    await app.audit.record({
      action: "auth.login",
      outcome: "failure",
      actorId: user?.id,
      actorEmail: email,
      organisationId: user?.organisationId,
      ip: request.ip,
      detail: { reason: user ? "wrong password" : "unknown email" },
    });
    throw unauthorized(MESSAGES.invalidCredentials);
  }
  await attempt.giveBack();

  const refusal = signInRefusal(user);
  if (refusal) {
    if (refusal === MESSAGES.emailNotVerified) await resendVerification(app, user, now);
    await app.audit.record({
      action: "auth.login",
      outcome: "denied",
      actorId: user.id,
      actorEmail: email,
      organisationId: user.organisationId,
      ip: request.ip,
      detail: { reason: user.status },
    });
    throw forbidden(refusal);
  }

  const code = randomDigits(SIGN_IN.codeDigits);
  await tokens(app).issue("sign-in", String(user.id), code, now, SIGN_IN.codeLifetimeMs);
  await app.mailer.send(signInCodeMail(user.email, code, SIGN_IN.codeLifetimeMs / 60_000));
  await app.audit.record({
    action: "auth.login",
    outcome: "success",
    actorId: user.id,
    actorEmail: email,
    organisationId: user.organisationId,
    ip: request.ip,
    detail: { step: "password" },
  });
  return { message: MESSAGES.signInCodeSent };
}

/**
 * Step 2: checks the e-mailed code (5 tries, then void) and starts a session. Wrong codes count per
 * account and per IP across codes; every failure gets the same answer, so it tells nothing about the
 * account (whether it exists, or signed in recently).
 */
export async function codeStep(app: App, request: FastifyRequest, reply: FastifyReply, email: string, code: string) {
  const now = app.clock.now();
  const attempt = await reserveCodeAttempt(app.limits, email, request.clientKey, now);
  if (!attempt.allowed) {
    await auditThrottled(app, request, "auth.verify-2fa", email, attempt.refused);
    throw tooManyRequests(MESSAGES.tooManyAttempts, attempt.retryAfterSeconds);
  }
  const user = await findUserByEmail(app.db, email);
  const result = user
    ? await tokens(app).attempt("sign-in", String(user.id), code, now, SIGN_IN.codeMaxTries)
    : "missing";
  const audit = {
    action: "auth.verify-2fa",
    actorId: user?.id,
    actorEmail: email,
    organisationId: user?.organisationId,
    ip: request.ip,
  };
  if (!user || result !== "ok") {
    await app.audit.record({ ...audit, outcome: "failure", detail: { reason: result } });
    throw unauthorized(MESSAGES.invalidSignInCode);
  }
  await attempt.giveBack();
  const refusal = signInRefusal(user);
  if (refusal) {
    await app.audit.record({ ...audit, outcome: "denied", detail: { reason: user.status } });
    throw forbidden(refusal);
  }
  await startSession(app, request, reply, user.id);
  await forgetAccountFailures(app.limits, user.email);
  await app.audit.record({ ...audit, outcome: "success" });
  return { role: user.role };
}

export async function signOut(app: App, request: FastifyRequest, reply: FastifyReply) {
  const user = request.user;
  await endSession(app, request, reply);
  if (user) {
    await app.audit.record({
      action: "auth.logout",
      outcome: "success",
      actorId: user.id,
      actorEmail: user.email,
      organisationId: user.organisationId,
      ip: request.ip,
    });
  }
  return { message: MESSAGES.signedOut };
}

/**
 * E-mails a reset link to an existing account; the answer is the same for unknown e-mails and comes
 * before any mail work (the link is issued and sent in the background), so its timing tells nothing.
 */
export async function forgotPassword(app: App, request: FastifyRequest, email: string) {
  const now = app.clock.now();
  const ip = await app.limits.hit(`forgot:ip:${request.clientKey}`, FORGOT_PER_IP.limit, FORGOT_PER_IP.windowMs, now);
  if (!ip.allowed) throw tooManyRequests(MESSAGES.tooManyAttempts, ip.retryAfterSeconds);
  const log = request.log;
  const ipAddress = request.ip;
  void sendResetLink(app, email, ipAddress, now).catch((err) => log.error({ err }, "password reset mail failed"));
  return { message: MESSAGES.resetLinkSent };
}

async function sendResetLink(app: App, email: string, ip: string, now: Date) {
  const user = await findUserByEmail(app.db, email);
  let outcome: "success" | "failure" | "denied" = "failure";
  if (user && user.status !== "deactivated") {
    const acct = await app.limits.hit(
      `forgot:acct:${user.id}`,
      FORGOT_PER_ACCOUNT.limit,
      FORGOT_PER_ACCOUNT.windowMs,
      now,
    );
    if (acct.allowed) {
      const token = randomToken(32);
      await tokens(app).issue("reset-password", String(user.id), token, now, TOKEN_LIFETIME.passwordResetMs);
      const url = `${app.config.publicUrl}${paths.resetPassword}?token=${token}`;
      await app.mailer.send(passwordResetMail(user.email, url, TOKEN_LIFETIME.passwordResetMs / 60_000));
      outcome = "success";
    } else outcome = "denied";
  }
  await app.audit.record({
    action: "auth.forgot-password",
    outcome,
    actorId: user?.id,
    actorEmail: email,
    organisationId: user?.organisationId,
    ip,
  });
}

/** Sets a new password from a reset link; every session of that user ends. */
export async function resetPassword(app: App, request: FastifyRequest, token: string, newPassword: string) {
  await assertAcceptablePassword(newPassword);
  const now = app.clock.now();
  const target = await tokens(app).consume("reset-password", token, now);
  const user = target ? await findUserById(app.db, Number(target)) : undefined;
  if (!user || user.status === "deactivated") {
    await app.audit.record({
      action: "auth.reset-password",
      outcome: "failure",
      ip: request.ip,
      detail: { reason: "invalid link" },
    });
    throw badRequest(MESSAGES.invalidResetLink);
  }
  await app.db
    .update(users)
    .set({ passwordHash: await hashPassword(newPassword) })
    .where(eq(users.id, user.id));
  await endAllSessions(app, user.id);
  await tokens(app).revoke("sign-in", String(user.id));
  await forgetAccountFailures(app.limits, user.email);
  await app.audit.record({
    action: "auth.reset-password",
    outcome: "success",
    actorId: user.id,
    actorEmail: user.email,
    organisationId: user.organisationId,
    ip: request.ip,
  });
  return { message: MESSAGES.passwordReset };
}

/** Issues an e-mail verification token for a new account and mails its link. */
export async function sendVerificationEmail(app: App, user: Pick<UserRow, "id" | "email">) {
  const token = randomToken(32);
  await tokens(app).issue("verify-email", String(user.id), token, app.clock.now(), TOKEN_LIFETIME.emailVerificationMs);
  const url = `${app.config.publicUrl}${paths.verifyEmail}?email=${encodeURIComponent(user.email)}&token=${token}`;
  await app.mailer.send(verifyEmailMail(user.email, url, TOKEN_LIFETIME.emailVerificationMs / 3_600_000));
}

/**
 * A new verification link for an account whose link was lost, expired or never sent (mail down at
 * sign-up). Only after the right password, so it cannot be used to mail strangers; rate-limited.
 */
async function resendVerification(app: App, user: UserRow, now: Date) {
  const { limit, windowMs } = VERIFY_RESEND;
  if ((await app.limits.hit(`verify-resend:${user.id}`, limit, windowMs, now)).allowed) {
    await sendVerificationEmail(app, user);
  }
}

/** Marks the e-mail verified; an employer stays pending until an admin activates it. */
export async function verifyEmail(app: App, request: FastifyRequest, email: string, token: string) {
  const now = app.clock.now();
  const user = await findUserByEmail(app.db, email);
  const result = user
    ? await tokens(app).attempt("verify-email", String(user.id), token, now, VERIFY_EMAIL_TRIES)
    : "missing";
  if (!user || result !== "ok" || user.status === "deactivated") {
    await app.audit.record({
      action: "auth.verify-email",
      outcome: "failure",
      actorId: user?.id,
      actorEmail: email,
      ip: request.ip,
      detail: { reason: result },
    });
    throw badRequest(MESSAGES.invalidVerificationLink);
  }
  await app.db.update(users).set({ emailVerifiedAt: now }).where(eq(users.id, user.id));
  if (user.organisationId !== null)
    await emailDomainProved(app.db, { organisationId: user.organisationId, emailDomain: emailDomain(user.email), now });
  await app.audit.record({
    action: "auth.verify-email",
    outcome: "success",
    actorId: user.id,
    actorEmail: email,
    organisationId: user.organisationId,
    ip: request.ip,
  });
  return { role: user.role, pending: user.status === "pending" };
}
