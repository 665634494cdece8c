import { type Actor, auditActor, type Deps, signedIn } from "@server/context";
import { sendVerificationEmail } from "@server/features/auth";
import { claimSeat, findLiveAccessCode } from "@server/features/employer";
import {
  findOrganisation,
  findOrganisationByDomain,
  insertOrganisation,
  organisationIsActive,
} from "@server/features/organisations";
import { addRegistrationSites } from "@server/features/sites";
import { ssoEnforcedFor, ssoErrors } from "@server/features/sso";
import { findUserByEmail, findUserById, insertUser } from "@server/features/users";
import { accessCodeHash, invitationHash } from "@server/lib/access-codes";
import { type AuditEvent, refuse } from "@server/lib/audit";
import { randomAccessCode } from "@server/lib/crypto";
import { HttpError } from "@server/lib/errors";
import { assertAcceptablePassword, hashPassword } from "@server/lib/passwords";
import { auditsRefusal } from "@server/lib/rate-limit";
import { employerInvitationMail } from "@server/mail/templates";
import { AUDIT_ACTIONS, type AuditAction } from "@shared/audit-actions";
import { TOKEN_LIFETIME } from "@shared/constants";
import {
  emailDomain,
  normaliseWebsite,
  ONBOARDING_MESSAGES,
  type RegisterEmployeeBody,
  type RegisterEmployerBody,
} from "@shared/onboarding";
import { paths } from "@shared/paths";
import { onboardingErrors } from "./errors";
import * as repo from "./repository";

/** Wrong access-code guesses (employer and employee codes together) allowed per client IP. */
export const CODE_GUESSES = { limit: 10, windowMs: 15 * 60_000 } as const;

const INVITATION_DAYS = TOKEN_LIFETIME.employerInvitationMs / 86_400_000;

/**
 * The account exists once its transaction commits; a mail failure must not turn that into an error
 * the user cannot recover from (a retry would hit "already registered"). The link is sent again
 * when the user signs in with the right password before verifying.
 */
async function sendVerificationEmailOrLog(deps: Deps, actor: Actor, user: { id: number; email: string }) {
  try {
    await sendVerificationEmail(deps, user);
  } catch (err) {
    deps.log.error(
      { err, requestId: actor.requestId },
      "verification e-mail could not be sent; it is re-sent at the next sign-in",
    );
  }
}

/**
 * Counts an access-code guess against the client IP before it is checked (429 beyond the limit).
 * The returned function takes the guess back once it proves to be a genuine code, so only failures count.
 */
async function countGuess(deps: Deps, actor: Actor, action: AuditAction) {
  const now = deps.clock.now();
  const key = `access-code-guess:ip:${actor.clientKey}`;
  const limit = await deps.limits.hit(key, CODE_GUESSES.limit, CODE_GUESSES.windowMs, now);
  if (!limit.allowed) {
    // Counted in the rate-limit row; only the 1st, 10th, 100th… refusal in a row is audited.
    if (auditsRefusal(limit.refused))
      await deps.audit.record({
        ...auditActor(actor),
        action,
        outcome: "denied",
        detail: { reason: "throttled", refused: limit.refused },
      });
    throw onboardingErrors.tooManyGuesses(limit.retryAfterSeconds);
  }
  return () => deps.limits.release(key, now);
}

/**
 * Runs a step of a registration; an HttpError it throws is recorded as the failure it answers
 * (other errors are bugs or outages and go to the error handler as they are).
 */
async function recordingFailures<T>(
  fail: (reason: string, error: HttpError) => Promise<never>,
  step: () => Promise<T>,
) {
  try {
    return await step();
  } catch (err) {
    if (err instanceof HttpError) throw await fail(err.message, err);
    throw err;
  }
}

/** The refusals of one attempt: each is audited with its reason, then its error is thrown (lib/audit.ts `refuse`). */
function failureRecorder(deps: Deps, audit: Omit<AuditEvent, "outcome">) {
  return (reason: string, error: HttpError) =>
    refuse(deps, { ...audit, outcome: "failure", detail: { reason } }, error);
}

// ---- employer invitations ----

/** An admin invites an employer: a single-use code for 7 days, stored hashed, e-mailed as a link. */
export async function inviteEmployer(deps: Deps, actor: Actor, input: { email: string }) {
  const { email } = input;
  const admin = signedIn(actor);
  const now = deps.clock.now();
  const audit = { ...auditActor(actor), action: AUDIT_ACTIONS.inviteEmployer, target: email };
  const refusal = (await findOrganisationByDomain(deps.db, emailDomain(email)))
    ? onboardingErrors.organisationExists()
    : (await findUserByEmail(deps.db, email))
      ? onboardingErrors.emailTaken()
      : null;
  if (refusal) {
    return refuse(deps, { ...audit, outcome: "failure", detail: { reason: refusal.message } }, refusal);
  }
  const code = randomAccessCode();
  await deps.db.transaction(async (tx) => {
    // A new invitation replaces any earlier unused one for the same address.
    await repo.expireInvitationsOf(tx, email, now);
    await repo.insertInvitation(tx, {
      email,
      codeHash: invitationHash(deps.config.appSecret, code),
      createdBy: admin.id,
      createdAt: now,
      expiresAt: new Date(now.getTime() + TOKEN_LIFETIME.employerInvitationMs),
    });
  });
  const url = `${deps.config.publicUrl}${paths.employerAccessCode}?code=${encodeURIComponent(code)}`;
  await deps.mailer.send(employerInvitationMail(email, url, code, INVITATION_DAYS));
  await deps.audit.record({ ...audit, outcome: "success" });
  return { code };
}

/** Checks an invitation code: the e-mail it was sent to, or 400. Failures count towards the IP limit. */
export async function validateEmployerCode(deps: Deps, actor: Actor, input: { code: string }) {
  const action = AUDIT_ACTIONS.validateEmployerCode;
  const audit = { ...auditActor(actor), action };
  const genuine = await countGuess(deps, actor, action);
  const hash = invitationHash(deps.config.appSecret, input.code);
  const invitation = await repo.findLiveInvitation(deps.db, hash, deps.clock.now());
  if (!invitation) {
    return refuse(
      deps,
      { ...audit, outcome: "failure", detail: { reason: "invalid code" } },
      onboardingErrors.invalidAccessCode(),
    );
  }
  await genuine();
  await deps.audit.record({ ...audit, outcome: "success", target: invitation.email });
  return { email: invitation.email };
}

/**
 * Creates the organisation and its pending superuser from an invitation, used up atomically, then mails
 * the verification link. The password match/strength/length checks ran in the body schema, in the
 * specification's order; the common-password check follows them here.
 */
export async function registerEmployer(deps: Deps, actor: Actor, body: RegisterEmployerBody) {
  const action = AUDIT_ACTIONS.registerEmployer;
  const audit = { ...auditActor(actor), action, actorEmail: body.email, target: body.email };
  const fail = failureRecorder(deps, audit);
  await assertAcceptablePassword(body.password);
  const now = deps.clock.now();

  const genuine = await countGuess(deps, actor, action);
  const hash = invitationHash(deps.config.appSecret, body.accessCode);
  const invitation = await repo.findLiveInvitation(deps.db, hash, now);
  if (!invitation) throw await fail("invalid code", onboardingErrors.invalidAccessCode());
  await genuine();
  if (invitation.email !== body.email) {
    throw await fail("email differs from invitation", onboardingErrors.wrongInvitationEmail());
  }
  const domain = emailDomain(body.email);
  if (await findOrganisationByDomain(deps.db, domain)) {
    throw await fail("organisation exists", onboardingErrors.organisationExists());
  }
  if (await findUserByEmail(deps.db, body.email)) throw await fail("email taken", onboardingErrors.emailTaken());

  const website = normaliseWebsite(body.website);
  if (!website) throw await fail("invalid website", onboardingErrors.invalidWebsite());
  const passwordHash = await hashPassword(body.password);

  const created = await recordingFailures(fail, () =>
    deps.db.transaction(async (tx) => {
      if (!(await repo.claimInvitation(tx, invitation.id, now))) throw onboardingErrors.invalidAccessCode();
      const organisationId = await insertOrganisation(tx, {
        companyName: body.companyName,
        domain,
        website: website.url,
        websiteHost: website.host,
        createdAt: now,
      });
      if (!organisationId) throw onboardingErrors.organisationExists();
      await addRegistrationSites(tx, { organisationId, domain, websiteHost: website.host, now });
      const userId = await insertUser(tx, {
        email: body.email,
        fullName: body.fullName,
        passwordHash,
        role: "superuser",
        status: "pending",
        organisationId,
        createdAt: now,
      });
      if (!userId) throw onboardingErrors.emailTaken();
      await repo.setInvitationUser(tx, invitation.id, userId);
      return { userId, organisationId };
    }),
  );

  await sendVerificationEmailOrLog(deps, actor, { id: created.userId, email: body.email });
  await deps.audit.record({
    ...audit,
    actorId: created.userId,
    organisationId: created.organisationId,
    outcome: "success",
    detail: { domain, website: website.url },
  });
  return { message: ONBOARDING_MESSAGES.registered };
}

// ---- employee access codes ----

/**
 * An employee access code that has not expired, whose organisation is active and whose employer (its
 * creator, when recorded) is still active: a deactivated organisation's or employer's code admits nobody.
 * With the organisation's domain and website. It may be full: compare usedCount with maxUsers.
 */
async function usableAccessCode(deps: Deps, hash: string, now: Date) {
  const code = await findLiveAccessCode(deps.db, hash, now);
  if (!code) return undefined;
  const creator = code.createdBy === null ? undefined : await findUserById(deps.db, code.createdBy);
  if (creator && creator.status !== "active") return undefined;
  const organisation = await findOrganisation(deps.db, code.organisationId);
  return organisation && organisationIsActive(organisation)
    ? { ...code, domain: organisation.domain, website: organisation.website }
    : undefined;
}

/** Checks an employee access code: the organisation's domain and website, or 400. Failures count per IP. */
export async function validateEmployeeCode(deps: Deps, actor: Actor, input: { code: string }) {
  const action = AUDIT_ACTIONS.validateAccessCode;
  const audit = { ...auditActor(actor), action };
  const genuine = await countGuess(deps, actor, action);
  const hash = accessCodeHash(deps.config.appSecret, input.code);
  const found = await usableAccessCode(deps, hash, deps.clock.now());
  if (!found) {
    return refuse(
      deps,
      { ...audit, outcome: "failure", detail: { reason: "invalid code" } },
      onboardingErrors.invalidAccessCode(),
    );
  }
  await genuine();
  const { organisationId } = found;
  if (found.usedCount >= found.maxUsers) {
    return refuse(
      deps,
      { ...audit, outcome: "failure", organisationId, detail: { reason: "code full" } },
      onboardingErrors.accessCodeFull(),
    );
  }
  await deps.audit.record({ ...audit, outcome: "success", organisationId });
  return { companyDomain: found.domain, website: found.website, message: ONBOARDING_MESSAGES.validAccessCode };
}

/**
 * Registers an employee at exactly the organisation's e-mail domain. The seat is taken with one
 * conditional update inside the same transaction as the user insert, so concurrent sign-ups never
 * exceed maxUsers and a failed insert does not burn a seat.
 */
export async function registerEmployee(deps: Deps, actor: Actor, body: RegisterEmployeeBody) {
  const action = AUDIT_ACTIONS.registerEmployee;
  const audit = { ...auditActor(actor), action, actorEmail: body.email, target: body.email };
  const now = deps.clock.now();

  const genuine = await countGuess(deps, actor, action);
  const hash = accessCodeHash(deps.config.appSecret, body.accessCode);
  const found = await usableAccessCode(deps, hash, now);
  const fail = failureRecorder(deps, { ...audit, organisationId: found?.organisationId });
  if (!found) throw await fail("invalid code", onboardingErrors.invalidAccessCode());
  await genuine();
  if (found.usedCount >= found.maxUsers) throw await fail("code full", onboardingErrors.accessCodeFull());
  // Exactly the organisation's domain: no subdomains, no look-alike suffixes.
  if (emailDomain(body.email) !== found.domain) {
    throw await fail("wrong domain", onboardingErrors.employeeWrongDomain());
  }
  // An organisation that requires single sign-on gets its employees from its identity provider.
  if (await ssoEnforcedFor(deps, found.organisationId)) throw await fail("sso required", ssoErrors.required());
  await recordingFailures(
    (_reason, error) => fail("common password", error),
    () => assertAcceptablePassword(body.password),
  );
  if (await findUserByEmail(deps.db, body.email)) throw await fail("email taken", onboardingErrors.emailTaken());

  const passwordHash = await hashPassword(body.password);
  const userId = await recordingFailures(fail, () =>
    deps.db.transaction(async (tx) => {
      if ((await claimSeat(tx, found.id, now)) === undefined) throw onboardingErrors.accessCodeFull();
      const id = await insertUser(tx, {
        email: body.email,
        fullName: body.fullName,
        passwordHash,
        role: "client",
        status: "active",
        organisationId: found.organisationId,
        createdAt: now,
        activatedAt: now,
      });
      if (!id) throw onboardingErrors.emailTaken();
      return id;
    }),
  );

  await sendVerificationEmailOrLog(deps, actor, { id: userId, email: body.email });
  await deps.audit.record({ ...audit, actorId: userId, organisationId: found.organisationId, outcome: "success" });
  return { message: ONBOARDING_MESSAGES.registered };
}
