import type { Deps } from "@server/context";
import { sessionStartedAt } from "@server/features/users";
import { PASSKEY } from "@shared/account";

/**
 * The one "signed in recently" rule: whether the session with this token hash started within the last
 * 15 minutes. A session left open or stolen long ago cannot add a passkey or hand out credentials that
 * vouch for the organisation (a SCIM token) without a fresh sign-in.
 */
export async function signedInRecently(deps: Pick<Deps, "db">, sessionHash: string, now: Date): Promise<boolean> {
  const started = await sessionStartedAt(deps.db, sessionHash);
  return started !== undefined && now.getTime() - started.getTime() <= PASSKEY.recentSignInMs;
}
