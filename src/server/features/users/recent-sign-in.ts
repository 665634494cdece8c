import { type Actor, auditActor, type Deps } from "@server/context";
import type { HttpError } from "@server/lib/errors";
import { PASSKEY } from "@shared/account";
import type { AuditAction } from "@shared/audit-actions";
import { sessionStartedAt } from "./repository";

/**
 * A session that started long ago may have been left open or stolen: a sensitive change (adding a
 * passkey, pointing the organisation's webhook elsewhere, single sign-on, a SCIM token, an API key) needs a
 * sign-in within the last 15 minutes.
 * Otherwise the refusal is audited under `refusal.action` and `refusal.error()` (a 403) is thrown.
 */
export async function assertRecentSignIn(
  deps: Deps,
  actor: Actor,
  sessionHash: string | null,
  refusal: { action: AuditAction; error: () => HttpError; organisationId?: number },
): Promise<void> {
  const started = sessionHash ? await sessionStartedAt(deps.db, sessionHash) : null;
  if (started && deps.clock.now().getTime() - started.getTime() <= PASSKEY.recentSignInMs) return;
  await deps.audit.record({
    ...auditActor(actor),
    action: refusal.action,
    outcome: "denied",
    ...(refusal.organisationId === undefined ? {} : { organisationId: refusal.organisationId }),
    detail: { reason: "sign-in not recent" },
  });
  throw refusal.error();
}
