import type { Deps } from "@server/context";
import type { Executor } from "@server/db/client";
import { organisationActive } from "@server/features/organisations";
import type { HttpError } from "@server/lib/errors";
import type { Mail } from "@server/mail/mailer";
import { usersErrors } from "./errors";
import { employerEmails, type UserRow } from "./repository";

/**
 * Mails every active superuser of the organisation `organisationId` the mail `mail(to)` makes for them, and
 * says how many were sent. One failure policy for every notice to an organisation's admins (a key or token
 * created, SSO changed, a site's proof lost, reported calls, an alert): the change it reports is already
 * made, so a mail that fails is logged and the others are still sent; it never fails the caller (nor
 * when the recipients cannot be read). Callers that answer a request first run it in `deps.background`.
 */
export async function notifyOrganisationAdmins(
  deps: Pick<Deps, "db" | "mailer" | "log">,
  organisationId: number,
  mail: (to: string) => Mail,
): Promise<number> {
  let recipients: string[];
  try {
    recipients = await employerEmails(deps.db, organisationId);
  } catch (err) {
    deps.log.warn({ err, organisationId }, "organisation admins not mailed: their addresses could not be read");
    return 0;
  }
  let sent = 0;
  for (const to of recipients) {
    const message = mail(to);
    try {
      await deps.mailer.send(message);
      sent++;
    } catch (err) {
      deps.log.warn({ err, organisationId, subject: message.subject }, "a mail to an organisation admin failed");
    }
  }
  return sent;
}

export type SignInRefusal = { reason: "deactivated" | "unverified" | "pending"; error: HttpError };

/**
 * Why an account whose credentials were right still may not sign in, or null: one rule for every way
 * of signing in (password, e-mailed code, passkey, single sign-on). No account counts as deactivated, and
 * so does an account of a deactivated organisation (features/organisations, whatever the account's status).
 */
export async function signInRefusal(
  db: Executor,
  user: Pick<UserRow, "status" | "emailVerifiedAt" | "organisationId"> | undefined,
): Promise<SignInRefusal | null> {
  if (!user || user.status === "deactivated" || !(await organisationActive(db, user.organisationId)))
    return { reason: "deactivated", error: usersErrors.accountDeactivated() };
  if (!user.emailVerifiedAt) return { reason: "unverified", error: usersErrors.emailNotVerified() };
  if (user.status === "pending") return { reason: "pending", error: usersErrors.accountPending() };
  return null;
}

/**
 * The rest of the cascade after accounts were deactivated (sessions and SSO links already ended in the
 * deactivating statement; live codes stop verifying, the look-up joining an active owner): every feature's
 * `onDeactivated` runs (an API key's creator: their keys are revoked). Every path calls it: the admin's
 * deactivations, the employer's, SCIM's and erasure. One step failing does not stop the others.
 */
export async function afterDeactivation(deps: Deps, userIds: number[]) {
  if (userIds.length === 0) return;
  for (const feature of deps.features) {
    if (!feature.onDeactivated) continue;
    try {
      await feature.onDeactivated(deps, userIds);
    } catch (err) {
      deps.log.error({ err, feature: feature.name }, "a deactivation step failed");
    }
  }
}

/**
 * Inside the transaction that changed an account's e-mail: every feature's `onEmailChanged` (links and codes
 * mailed to the old address stop working).
 */
export async function afterEmailChange(deps: Pick<Deps, "features">, tx: Executor, userId: number) {
  for (const feature of deps.features) await feature.onEmailChanged?.(tx, userId);
}
