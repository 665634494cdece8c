import { type Actor, auditActor, type Deps } from "@server/context";
import { deletePasskeysOf } from "@server/features/account";
import { eraseFromAudit, recordErasure } from "@server/features/audit";
import { deleteTokensOfUser } from "@server/features/auth";
import { deleteCodesOf } from "@server/features/codes";
import { eraseInvitationsOf } from "@server/features/onboarding";
import { eraseScimAttributesOf } from "@server/features/scim";
import { afterDeactivation, eraseUser, findUserByEmail, findUserById } from "@server/features/users";
import { eraseFromDeliveries } from "@server/features/webhooks";
import { refuse } from "@server/lib/audit";
import { ADMIN_MESSAGES } from "@shared/admin";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { adminErrors } from "./errors";

/**
 * Erases an account (the right to erasure), in one transaction: its name and e-mail are replaced, its
 * sessions, passkeys, codes and tokens deleted, its invitations and webhook deliveries no longer name
 * it, and its audit events keep their ids and actions without its personal data. It cannot sign in
 * again. Admin accounts are not erased this way.
 */
export async function eraseAccount(deps: Deps, actor: Actor, input: { id: number }) {
  const audit = { ...auditActor(actor), action: AUDIT_ACTIONS.eraseAccount, target: String(input.id) };
  const user = await findUserById(deps.db, input.id);
  if (!user || user.role === "admin") {
    return refuse(
      deps,
      { ...audit, outcome: "failure", detail: { reason: "no such account" } },
      adminErrors.accountNotFound(),
    );
  }
  const now = deps.clock.now();
  const person = { id: user.id, email: user.email, fullName: user.fullName };
  await deps.db.transaction(async (tx) => {
    await eraseUser(tx, user.id, now);
    await deletePasskeysOf(tx, user.id);
    await deleteCodesOf(tx, user.id);
    await deleteTokensOfUser(tx, user.id);
    await eraseInvitationsOf(tx, user.email, `erased-${user.id}@erased.invalid`);
    await eraseFromDeliveries(tx, person);
    // SCIM's attributes (externalId, names) go; the e-mail SCIM released may name the account in the audit log.
    // (Unless a newer account has that e-mail now: its events are its own.)
    const released = await eraseScimAttributesOf(tx, user.id, user.organisationId, now);
    const rows = await eraseFromAudit(tx, person);
    if (released && !(await findUserByEmail(tx, released))) {
      rows.push(...(await eraseFromAudit(tx, { ...person, email: released })));
    }
    // In the same transaction: the changed events and what erasure left in them, by id (`audit verify`
    // accepts their deleted values only as this event seals them).
    await recordErasure(
      tx,
      deps.config.appSecret,
      now,
      { ...auditActor(actor), organisationId: user.organisationId },
      { account: user.id, rows },
    );
  });
  // An erased account is a deactivated one: the rest of the cascade (its API keys are revoked).
  await afterDeactivation(deps, [user.id]);
  return { message: ADMIN_MESSAGES.accountErased };
}
