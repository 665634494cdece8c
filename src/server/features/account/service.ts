import { type Actor, auditActor, type Deps, notSignedIn, signedIn, signedInSession } from "@server/context";
import { VerificationTokens } from "@server/features/auth";
import { endOtherSessions, findAccountUser, listLiveSessions, setPasswordHash } from "@server/features/users";
import { refuse } from "@server/lib/audit";
import { hashPassword, isCommonPassword, verifyPassword } from "@server/lib/passwords";
import type { Mailer } from "@server/mail/mailer";
import { ACCOUNT_TEXT, type AccountAnswer, type accountExportAnswer, CHANGE_PASSWORD } from "@shared/account";
import type { z } from "zod";

type AccountExport = z.infer<typeof accountExportAnswer>;

import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { SESSION } from "@shared/constants";
import { accountErrors } from "./errors";
import { passwordChangedMail } from "./mails";
import { listPasskeys } from "./repository";

/** Sends a notice mail; the change it reports is already made, so a mail failure is logged, not raised. */
export async function sendNotice(deps: Deps, mail: Parameters<Mailer["send"]>[0]) {
  try {
    await deps.mailer.send(mail);
  } catch (err) {
    deps.log.warn({ err, subject: mail.subject }, "notice mail failed");
  }
}

/** The account page: profile, passkeys and the live sessions (this one marked). */
export async function getAccount(deps: Deps, actor: Actor, input: { sessionHash: string | null }) {
  const { user, sessionHash } = signedInSession(actor, input.sessionHash);
  const now = deps.clock.now();
  const [profile, keys, live] = await Promise.all([
    findAccountUser(deps.db, user.id),
    listPasskeys(deps.db, user.id),
    listLiveSessions(deps.db, user.id, now, SESSION.idleMs),
  ]);
  if (!profile) throw notSignedIn();
  const answer: AccountAnswer = {
    email: profile.email,
    fullName: profile.fullName,
    role: profile.role,
    organisation: profile.organisation ?? null,
    passkeys: keys.map((k) => ({
      id: k.id,
      name: k.name,
      createdAt: k.createdAt.toISOString(),
      lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
    })),
    sessions: live.map((s) => ({
      id: s.id,
      current: s.tokenHash === sessionHash,
      createdAt: s.createdAt.toISOString(),
      lastSeenAt: s.lastSeenAt.toISOString(),
      userAgent: s.userAgent,
      ip: s.ip,
    })),
  };
  return answer;
}

/**
 * Changes the password of the signed-in user after checking the current one (wrong guesses are
 * limited per user). Every other session ends, pending sign-in codes and reset links are voided,
 * and the user is told by e-mail.
 */
export async function changePassword(
  deps: Deps,
  actor: Actor,
  input: { sessionHash: string | null; currentPassword: string; newPassword: string },
) {
  const { user, sessionHash } = signedInSession(actor, input.sessionHash);
  const now = deps.clock.now();
  const audit = { ...auditActor(actor), action: AUDIT_ACTIONS.changePassword };
  const failKey = `change-password-fail:${user.id}`;
  const { maxFailures, failureWindowMs } = CHANGE_PASSWORD;
  // Counted before the password is checked (and given back when it was right), so parallel guesses
  // cannot exceed the limit: each one takes its place in the window first.
  const allowance = await deps.limits.hit(failKey, maxFailures, failureWindowMs, now);
  if (!allowance.allowed) {
    return refuse(
      deps,
      { ...audit, outcome: "denied", detail: { reason: "throttled" } },
      accountErrors.tooManyAttempts(allowance.retryAfterSeconds),
    );
  }
  const profile = await findAccountUser(deps.db, user.id);
  if (!profile || !(await verifyPassword(profile.passwordHash, input.currentPassword))) {
    return refuse(
      deps,
      { ...audit, outcome: "failure", detail: { reason: "wrong current password" } },
      accountErrors.wrongCurrentPassword(),
    );
  }
  await deps.limits.release(failKey, now);
  if (input.newPassword === input.currentPassword) throw accountErrors.samePassword();
  if (await isCommonPassword(input.newPassword)) throw accountErrors.commonPassword();

  await setPasswordHash(deps.db, user.id, await hashPassword(input.newPassword));
  const ended = await endOtherSessions(deps.db, user.id, sessionHash);
  const tokens = new VerificationTokens(deps.db, deps.config.appSecret);
  await tokens.revoke("sign-in", String(user.id));
  await tokens.revoke("reset-password", String(user.id));
  await deps.limits.reset(failKey);
  await deps.audit.record({ ...audit, outcome: "success", detail: { otherSessionsEnded: ended } });
  await sendNotice(deps, passwordChangedMail(user.email, now, actor.ip));
  return { message: ACCOUNT_TEXT.passwordChanged };
}

/** Ends every session of the user but this one. */
export async function revokeOtherSessions(deps: Deps, actor: Actor, input: { sessionHash: string | null }) {
  const { user, sessionHash } = signedInSession(actor, input.sessionHash);
  const count = await endOtherSessions(deps.db, user.id, sessionHash);
  await deps.audit.record({
    ...auditActor(actor),
    action: AUDIT_ACTIONS.revokeOtherSessions,
    outcome: "success",
    detail: { count },
  });
  return { count };
}

/**
 * Everything kept about the signed-in person (a subject-access request): each feature's part of it
 * (`exportFor`: profile and sessions, passkeys with no key material, codes with no words, the audit events
 * where they are the actor or the target…). Other people appear only as ids; an address only on events the
 * person performed.
 */
export async function exportAccount(deps: Deps, actor: Actor): Promise<AccountExport> {
  const user = signedIn(actor);
  const person = { id: user.id, email: user.email, fullName: user.fullName, organisationId: user.organisationId };
  const parts = await Promise.all(
    deps.features.map(async (feature) => {
      const part = feature.exportFor ? await feature.exportFor(deps, person) : undefined;
      if (part === undefined) return {};
      return typeof part === "object" && part !== null && !Array.isArray(part) ? part : { [feature.name]: part };
    }),
  );
  await deps.audit.record({ ...auditActor(actor), action: AUDIT_ACTIONS.exportAccount, outcome: "success" });
  return { exportedAt: deps.clock.now().toISOString(), ...Object.assign({}, ...parts) } as AccountExport;
}
