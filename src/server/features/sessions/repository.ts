import type { SessionUser } from "@server/context";
import type { Db, Executor } from "@server/db/client";
import { sessions, users } from "@server/db/schema";
import { and, eq, gt, lt } from "drizzle-orm";

/** The columns of a SessionUser, for every query that reads one. */
export const sessionUserColumns = {
  id: users.id,
  email: users.email,
  fullName: users.fullName,
  role: users.role,
  status: users.status,
  organisationId: users.organisationId,
};

/** The active user of a live session (neither expired nor idle since `idleSince`), with its last activity. */
export async function findSessionUser(
  db: Db,
  tokenHash: string,
  now: Date,
  idleSince: Date,
): Promise<(SessionUser & { lastSeenAt: Date }) | undefined> {
  const [row] = await db
    .select({ ...sessionUserColumns, lastSeenAt: sessions.lastSeenAt })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(
      and(
        eq(sessions.tokenHash, tokenHash),
        gt(sessions.expiresAt, now),
        gt(sessions.lastSeenAt, idleSince),
        eq(users.status, "active"),
      ),
    );
  return row;
}

export async function touchSession(db: Db, tokenHash: string, now: Date) {
  await db.update(sessions).set({ lastSeenAt: now }).where(eq(sessions.tokenHash, tokenHash));
}

export async function insertSession(
  db: Db,
  values: { tokenHash: string; userId: number; now: Date; expiresAt: Date; userAgent: string | null; ip: string },
) {
  await db.insert(sessions).values({
    tokenHash: values.tokenHash,
    userId: values.userId,
    createdAt: values.now,
    lastSeenAt: values.now,
    expiresAt: values.expiresAt,
    userAgent: values.userAgent,
    ip: values.ip,
  });
}

export async function deleteSession(db: Db, tokenHash: string) {
  await db.delete(sessions).where(eq(sessions.tokenHash, tokenHash));
}

/** Ends every session of a user (password reset, deactivation). */
export async function deleteSessionsOf(db: Executor, userId: number) {
  await db.delete(sessions).where(eq(sessions.userId, userId));
}

export async function deleteExpiredSessions(db: Db, now: Date) {
  await db.delete(sessions).where(lt(sessions.expiresAt, now));
}
