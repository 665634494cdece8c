import { type Actor, auditActor, type Deps } from "@server/context";
import { refuse } from "@server/lib/audit";
import { PASSKEY } from "@shared/account-texts";
import type { AuditAction } from "@shared/audit-actions";
import { usersErrors } from "./errors";
import { sessionStartedAt } from "./repository";

/**
 * A session that started long ago may have been left open or stolen: a sensitive change (adding a
 * passkey, pointing the organisation's webhook elsewhere, single sign-on, a SCIM token, an API key) needs a
 * sign-in within the last 15 minutes.
 * Otherwise the refusal is audited under `refusal.action` and the one answer for it is thrown: 403
 * `auth.recent_sign_in_required` (usersErrors.recentSignInRequired), whichever feature asks.
 */
export async function assertRecentSignIn(
  deps: Deps,
  actor: Actor,
  sessionHash: string | null,
  refusal: { action: AuditAction; organisationId?: number },
): Promise<void> {
  const started = sessionHash ? await sessionStartedAt(deps.db, sessionHash) : null;
  if (started && deps.clock.now().getTime() - started.getTime() <= PASSKEY.recentSignInMs) return;
  await refuse(
    deps,
    {
      ...auditActor(actor),
      action: refusal.action,
      outcome: "denied",
      ...(refusal.organisationId === undefined ? {} : { organisationId: refusal.organisationId }),
      detail: { reason: "sign-in not recent" },
    },
    usersErrors.recentSignInRequired(),
  );
}
