/** The home of the `users` and `sessions` tables: accounts, sign-in refusals, sessions, deactivation. */

export { ensureAdmin } from "./admin-accounts";
export { usersErrors } from "./errors";
export { assertRecentSignIn } from "./recent-sign-in";
export * from "./repository";
export * from "./service";
export { endSession, startSession } from "./session";
