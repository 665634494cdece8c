import { type Actor, auditActor, type Deps } from "@server/context";
import { auditFeature, eraseAudit, recordErasure } from "@server/features/audit";
import type { Erasure, Person } from "@server/features/feature";
import { afterDeactivation, findUserById } from "@server/features/users";
import { refuse } from "@server/lib/audit";
import { ADMIN_MESSAGES } from "@shared/admin";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { adminErrors } from "./errors";

/**
 * Erases an account (the right to erasure), in one transaction: every feature's `erase` in the registry's
 * order (its name and e-mail are replaced, its sessions, passkeys, codes and tokens deleted, its invitations
 * and webhook deliveries no longer name it, SCIM's attributes go…), then the audit log's, last: its events
 * keep their ids and actions without its personal data. It cannot sign in again. Admin accounts are not
 * erased this way.
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
  const person: Person = {
    id: user.id,
    email: user.email,
    fullName: user.fullName,
    organisationId: user.organisationId,
  };
  await deps.db.transaction(async (tx) => {
    const erasure: Erasure = { formerEmails: [] };
    for (const feature of deps.features) {
      if (feature.name !== auditFeature.name) await feature.erase?.(tx, person, now, erasure);
    }
    // Last, for what the others found (the e-mail SCIM had released).
    const rows = await eraseAudit(tx, person, erasure);
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
