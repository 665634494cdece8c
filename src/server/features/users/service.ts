import type { Deps } from "@server/context";
import type { Db } from "@server/db/client";
import type { HttpError } from "@server/lib/errors";
import { PASSKEY } from "@shared/account-texts";
import { usersErrors } from "./errors";
import { sessionStartedAt, type UserRow } from "./repository";

export type SignInRefusal = { reason: "deactivated" | "unverified" | "pending"; error: HttpError };

/**
 * Why an account whose credentials were right still may not sign in, or null: one rule for every way
 * of signing in (password, e-mailed code, passkey, single sign-on). No account counts as deactivated.
 */
export function signInRefusal(user: Pick<UserRow, "status" | "emailVerifiedAt"> | undefined): SignInRefusal | null {
  if (!user || user.status === "deactivated") return { reason: "deactivated", error: usersErrors.accountDeactivated() };
  if (!user.emailVerifiedAt) return { reason: "unverified", error: usersErrors.emailNotVerified() };
  if (user.status === "pending") return { reason: "pending", error: usersErrors.accountPending() };
  return null;
}

/** How recent the sign-in of a session must be for a sensitive change (adding a passkey, creating an API key). */
export const RECENT_SIGN_IN_MS = PASSKEY.recentSignInMs;

/**
 * The one "signed in recently" rule: whether the session with this token hash started within the last
 * 15 minutes. A session left open or stolen long ago may not add a way in (a passkey, an API key).
 */
export async function signedInRecently(db: Db, sessionHash: string, now: Date): Promise<boolean> {
  const started = await sessionStartedAt(db, sessionHash);
  return started !== undefined && now.getTime() - started.getTime() <= RECENT_SIGN_IN_MS;
}

/** What happens elsewhere when accounts are deactivated (an API key's creator: their keys are revoked). */
export type DeactivationListener = (deps: Deps, userIds: number[]) => Promise<void>;
const deactivationListeners = new Set<DeactivationListener>();

/** Adds a step to the deactivation cascade (the same function once, however many apps are built). */
export function onDeactivation(listener: DeactivationListener) {
  deactivationListeners.add(listener);
}

/**
 * The rest of the cascade after accounts were deactivated (sessions already ended, live codes already
 * stopped): each registered step runs; one step failing does not stop the others.
 */
export async function afterDeactivation(deps: Deps, userIds: number[]) {
  if (userIds.length === 0) return;
  for (const listener of deactivationListeners) {
    try {
      await listener(deps, userIds);
    } catch (err) {
      deps.log.error({ err }, "a deactivation step failed");
    }
  }
}
