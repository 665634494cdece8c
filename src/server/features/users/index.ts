/** The home of the `users` and `sessions` tables: accounts, sign-in refusals, sessions, deactivation. */
import { notSignedIn } from "@server/context";
import type { Feature } from "@server/features/feature";
import { deleteExpiredSessions, eraseUser, findAccountUser, sessionsOf } from "./repository";
import session from "./session";

export { ensureAdmin } from "./admin-accounts";
export { usersErrors } from "./errors";
export { assertRecentSignIn } from "./recent-sign-in";
export * from "./repository";
export * from "./service";
export { endSession, startSession } from "./session";

/** Accounts and sessions: the session cookie on every request, and the account row of every person. */
export const usersFeature: Feature = {
  name: "users",
  purpose: "Accounts and sessions: the session cookie and CSRF check, sign-in refusals, deactivation.",
  tables: ["users", "sessions", "sso_links"],
  plugins: [session],
  sweep: (deps, now) => deleteExpiredSessions(deps.db, now),
  // Name and e-mail replaced, password unusable, sessions and SSO links gone; the row stays (ids point at it).
  erase: (tx, person, now) => eraseUser(tx, person.id, now),
  exportFor: async (deps, person) => {
    const [profile, sessions] = await Promise.all([
      findAccountUser(deps.db, person.id),
      sessionsOf(deps.db, person.id),
    ]);
    if (!profile) throw notSignedIn();
    return {
      profile: {
        id: profile.id,
        email: profile.email,
        fullName: profile.fullName,
        role: profile.role,
        status: profile.status,
        organisation: profile.organisation ?? null,
        emailVerifiedAt: profile.emailVerifiedAt?.toISOString() ?? null,
      },
      sessions: sessions.map((s) => ({
        createdAt: s.createdAt.toISOString(),
        lastSeenAt: s.lastSeenAt.toISOString(),
        expiresAt: s.expiresAt.toISOString(),
        userAgent: s.userAgent,
        ip: s.ip,
      })),
    };
  },
};
