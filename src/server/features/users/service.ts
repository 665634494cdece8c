import type { HttpError } from "@server/lib/errors";
import { usersErrors } from "./errors";
import type { UserRow } from "./repository";

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
