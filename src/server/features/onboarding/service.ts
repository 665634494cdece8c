import { hmac, normaliseAccessCode, randomAccessCode } from "@server/lib/crypto";
import { badRequest, conflict, HttpError, tooManyRequests } from "@server/lib/errors";
import { hashPassword } from "@server/lib/passwords";
import { auditsRefusal } from "@server/lib/rate-limit";
import { employerInvitationMail } from "@server/mail/templates";
import { currentUser } from "@server/plugins/guards";
import type { App } from "@server/types";
import { ADMIN_MESSAGES } from "@shared/admin";
import { TOKEN_LIFETIME } from "@shared/constants";
import { MESSAGES } from "@shared/messages";
import {
  emailDomain,
  normaliseWebsite,
  ONBOARDING_MESSAGES,
  type RegisterEmployeeBody,
  type RegisterEmployerBody,
} from "@shared/onboarding";
import { paths } from "@shared/paths";
import type { FastifyRequest } from "fastify";
import { actorOf } from "../audit/actions";
import { assertAcceptablePassword, sendVerificationEmail } from "../auth/service";
import { findUserByEmail } from "../auth/users";
import { addRegistrationSites } from "../sites/service";
import * as repo from "./repository";

/** Wrong access-code guesses (employer and employee codes together) allowed per client IP. */
export const CODE_GUESSES = { limit: 10, windowMs: 15 * 60_000 } as const;

const INVITATION_DAYS = TOKEN_LIFETIME.employerInvitationMs / 86_400_000;

export const invitationHash = (app: App, code: string) =>
  hmac(app.config.appSecret, "employer-invitation", normaliseAccessCode(code));
export const accessCodeHash = (app: App, code: string) =>
  hmac(app.config.appSecret, "employee-access-code", normaliseAccessCode(code));

/**
 * The account exists once its transaction commits; a mail failure must not turn that into an error
 * the user cannot recover from (a retry would hit "already registered"). The link is sent again
 * when the user signs in with the right password before verifying.
 */
async function sendVerificationEmailOrLog(app: App, request: FastifyRequest, user: { id: number; email: string }) {
  try {
    await sendVerificationEmail(app, user);
  } catch (err) {
    request.log.error({ err }, "verification e-mail could not be sent; it is re-sent at the next sign-in");
  }
}

/**
 * Counts an access-code guess against the client IP before it is checked (429 beyond the limit).
 * The returned function takes the guess back once it proves to be a genuine code, so only failures count.
 */
async function countGuess(app: App, request: FastifyRequest, action: string) {
  const now = app.clock.now();
  const key = `access-code-guess:ip:${request.clientKey}`;
  const limit = await app.limits.hit(key, CODE_GUESSES.limit, CODE_GUESSES.windowMs, now);
  if (!limit.allowed) {
    // Counted in the rate-limit row; only the 1st, 10th, 100th… refusal in a row is audited.
    if (auditsRefusal(limit.refused))
      await app.audit.record({
        ...actorOf(request),
        action,
        outcome: "denied",
        detail: { reason: "throttled", refused: limit.refused },
      });
    throw tooManyRequests(MESSAGES.tooManyAttempts, limit.retryAfterSeconds);
  }
  return () => app.limits.release(key, now);
}

// ---- employer invitations ----

/** An admin invites an employer: a single-use code for 7 days, stored hashed, e-mailed as a link. */
export async function inviteEmployer(app: App, request: FastifyRequest, email: string) {
  const admin = currentUser(request);
  const now = app.clock.now();
  const audit = { ...actorOf(request), action: "admin.invite-employer", target: email };
  const reason = (await repo.findOrganisationByDomain(app.db, emailDomain(email)))
    ? ADMIN_MESSAGES.organisationExists
    : (await findUserByEmail(app.db, email))
      ? ONBOARDING_MESSAGES.emailTaken
      : null;
  if (reason) {
    await app.audit.record({ ...audit, outcome: "failure", detail: { reason } });
    throw conflict(reason);
  }
  const code = randomAccessCode();
  await app.db.transaction(async (tx) => {
    // A new invitation replaces any earlier unused one for the same address.
    await repo.expireInvitationsOf(tx, email, now);
    await repo.insertInvitation(tx, {
      email,
      codeHash: invitationHash(app, code),
      createdBy: admin.id,
      createdAt: now,
      expiresAt: new Date(now.getTime() + TOKEN_LIFETIME.employerInvitationMs),
    });
  });
  const url = `${app.config.publicUrl}${paths.employerAccessCode}?code=${encodeURIComponent(code)}`;
  await app.mailer.send(employerInvitationMail(email, url, code, INVITATION_DAYS));
  await app.audit.record({ ...audit, outcome: "success" });
  return { code };
}

/** Checks an invitation code: the e-mail it was sent to, or 400. Failures count towards the IP limit. */
export async function validateEmployerCode(app: App, request: FastifyRequest, code: string) {
  const action = "onboarding.validate-employer-code";
  const genuine = await countGuess(app, request, action);
  const invitation = await repo.findLiveInvitation(app.db, invitationHash(app, code), app.clock.now());
  if (!invitation) {
    await app.audit.record({ ...actorOf(request), action, outcome: "failure", detail: { reason: "invalid code" } });
    throw badRequest(ONBOARDING_MESSAGES.invalidAccessCode);
  }
  await genuine();
  await app.audit.record({ ...actorOf(request), action, outcome: "success", target: invitation.email });
  return { email: invitation.email };
}

/**
 * Creates the organisation and its pending superuser from an invitation, used up atomically, then mails
 * the verification link. The password match/strength/length checks ran in the body schema, in the
 * specification's order; the common-password check follows them here.
 */
export async function registerEmployer(app: App, request: FastifyRequest, body: RegisterEmployerBody) {
  const action = "onboarding.register-employer";
  const audit = { ...actorOf(request), action, actorEmail: body.email, target: body.email };
  const fail = async (reason: string, error: Error) => {
    await app.audit.record({ ...audit, outcome: "failure", detail: { reason } });
    return error;
  };
  await assertAcceptablePassword(body.password);
  const now = app.clock.now();

  const genuine = await countGuess(app, request, action);
  const invitation = await repo.findLiveInvitation(app.db, invitationHash(app, body.accessCode), now);
  if (!invitation) throw await fail("invalid code", badRequest(ONBOARDING_MESSAGES.invalidAccessCode));
  await genuine();
  if (invitation.email !== body.email) {
    throw await fail("email differs from invitation", badRequest(ONBOARDING_MESSAGES.wrongInvitationEmail));
  }
  const domain = emailDomain(body.email);
  if (await repo.findOrganisationByDomain(app.db, domain)) {
    throw await fail("organisation exists", conflict(ONBOARDING_MESSAGES.organisationExists));
  }
  if (await findUserByEmail(app.db, body.email))
    throw await fail("email taken", conflict(ONBOARDING_MESSAGES.emailTaken));

  const website = normaliseWebsite(body.website);
  if (!website) throw await fail("invalid website", badRequest(ONBOARDING_MESSAGES.invalidWebsite));
  const passwordHash = await hashPassword(body.password);

  let created: { userId: number; organisationId: number };
  try {
    created = await app.db.transaction(async (tx) => {
      if (!(await repo.claimInvitation(tx, invitation.id, now)))
        throw badRequest(ONBOARDING_MESSAGES.invalidAccessCode);
      const organisationId = await repo.insertOrganisation(tx, {
        companyName: body.companyName,
        domain,
        website: website.url,
        websiteHost: website.host,
        createdAt: now,
      });
      if (!organisationId) throw conflict(ONBOARDING_MESSAGES.organisationExists);
      await addRegistrationSites(tx, { organisationId, domain, websiteHost: website.host, now });
      const userId = await repo.insertUser(tx, {
        email: body.email,
        fullName: body.fullName,
        passwordHash,
        role: "superuser",
        status: "pending",
        organisationId,
        createdAt: now,
      });
      if (!userId) throw conflict(ONBOARDING_MESSAGES.emailTaken);
      await repo.setInvitationUser(tx, invitation.id, userId);
      return { userId, organisationId };
    });
  } catch (err) {
    if (err instanceof HttpError) throw await fail(err.message, err);
    throw err;
  }

  await sendVerificationEmailOrLog(app, request, { id: created.userId, email: body.email });
  await app.audit.record({
    ...audit,
    actorId: created.userId,
    organisationId: created.organisationId,
    outcome: "success",
    detail: { domain, website: website.url },
  });
  return { message: ONBOARDING_MESSAGES.registered };
}

// ---- employee access codes ----

/** Checks an employee access code: the organisation's domain and website, or 400. Failures count per IP. */
export async function validateEmployeeCode(app: App, request: FastifyRequest, code: string) {
  const action = "onboarding.validate-access-code";
  const genuine = await countGuess(app, request, action);
  const found = await repo.findUsableAccessCode(app.db, accessCodeHash(app, code), app.clock.now());
  if (!found) {
    await app.audit.record({ ...actorOf(request), action, outcome: "failure", detail: { reason: "invalid code" } });
    throw badRequest(ONBOARDING_MESSAGES.invalidAccessCode);
  }
  await genuine();
  if (found.usedCount >= found.maxUsers) {
    await app.audit.record({
      ...actorOf(request),
      action,
      outcome: "failure",
      organisationId: found.organisationId,
      detail: { reason: "code full" },
    });
    throw badRequest(ONBOARDING_MESSAGES.accessCodeFull);
  }
  await app.audit.record({ ...actorOf(request), action, outcome: "success", organisationId: found.organisationId });
  return { companyDomain: found.domain, website: found.website, message: ONBOARDING_MESSAGES.validAccessCode };
}

/**
 * Registers an employee at exactly the organisation's e-mail domain. The seat is taken with one
 * conditional update inside the same transaction as the user insert, so concurrent sign-ups never
 * exceed maxUsers and a failed insert does not burn a seat.
 */
export async function registerEmployee(app: App, request: FastifyRequest, body: RegisterEmployeeBody) {
  const action = "onboarding.register-employee";
  const audit = { ...actorOf(request), action, actorEmail: body.email, target: body.email };
  const now = app.clock.now();

  const genuine = await countGuess(app, request, action);
  const found = await repo.findUsableAccessCode(app.db, accessCodeHash(app, body.accessCode), now);
  const fail = async (reason: string, error: Error) => {
    await app.audit.record({ ...audit, organisationId: found?.organisationId, outcome: "failure", detail: { reason } });
    return error;
  };
  if (!found) throw await fail("invalid code", badRequest(ONBOARDING_MESSAGES.invalidAccessCode));
  await genuine();
  if (found.usedCount >= found.maxUsers) throw await fail("code full", badRequest(ONBOARDING_MESSAGES.accessCodeFull));
  // Exactly the organisation's domain: no subdomains, no look-alike suffixes.
  if (emailDomain(body.email) !== found.domain) {
    throw await fail("wrong domain", badRequest(ONBOARDING_MESSAGES.employeeWrongDomain));
  }
  try {
    await assertAcceptablePassword(body.password);
  } catch (err) {
    throw await fail("common password", err as Error);
  }
  if (await findUserByEmail(app.db, body.email))
    throw await fail("email taken", conflict(ONBOARDING_MESSAGES.emailTaken));

  const passwordHash = await hashPassword(body.password);
  let userId: number;
  try {
    userId = await app.db.transaction(async (tx) => {
      if ((await repo.claimSeat(tx, found.id, now)) === undefined) throw badRequest(ONBOARDING_MESSAGES.accessCodeFull);
      const id = await repo.insertUser(tx, {
        email: body.email,
        fullName: body.fullName,
        passwordHash,
        role: "client",
        status: "active",
        organisationId: found.organisationId,
        createdAt: now,
        activatedAt: now,
      });
      if (!id) throw conflict(ONBOARDING_MESSAGES.emailTaken);
      return id;
    });
  } catch (err) {
    if (err instanceof HttpError) throw await fail(err.message, err);
    throw err;
  }

  await sendVerificationEmailOrLog(app, request, { id: userId, email: body.email });
  await app.audit.record({ ...audit, actorId: userId, organisationId: found.organisationId, outcome: "success" });
  return { message: ONBOARDING_MESSAGES.registered };
}
