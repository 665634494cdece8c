import type { Db, Executor } from "@server/db/client";
import { passkeys, webauthnChallenges } from "@server/db/schema";
import { and, asc, eq, gt, isNull, lt, or, sql } from "drizzle-orm";

export type PasskeyRow = typeof passkeys.$inferSelect;
export type NewPasskey = typeof passkeys.$inferInsert;
export type ChallengePurpose = "register" | "sign-in";

export async function listPasskeys(db: Db, userId: number) {
  return db
    .select()
    .from(passkeys)
    .where(eq(passkeys.userId, userId))
    .orderBy(asc(passkeys.createdAt), asc(passkeys.id));
}

/** Stores a new passkey; undefined when its credential id is already registered (to anyone). */
export async function insertPasskey(db: Db, values: NewPasskey): Promise<PasskeyRow | undefined> {
  const [row] = await db
    .insert(passkeys)
    .values(values)
    .onConflictDoNothing({ target: passkeys.credentialId })
    .returning();
  return row;
}

export async function renamePasskey(db: Db, userId: number, id: number, name: string) {
  const [row] = await db
    .update(passkeys)
    .set({ name })
    .where(and(eq(passkeys.id, id), eq(passkeys.userId, userId)))
    .returning();
  return row;
}

export async function deletePasskey(db: Db, userId: number, id: number) {
  const [row] = await db
    .delete(passkeys)
    .where(and(eq(passkeys.id, id), eq(passkeys.userId, userId)))
    .returning();
  return row;
}

export async function findPasskeyByCredentialId(db: Db, credentialId: string): Promise<PasskeyRow | undefined> {
  const [row] = await db.select().from(passkeys).where(eq(passkeys.credentialId, credentialId));
  return row;
}

/**
 * Records a verified use of a passkey: the new counter, backup state and time. The counter must move
 * forward (or stay 0 for authenticators that keep none), checked in the same statement, so two
 * assertions carrying the same counter cannot both pass. Returns false when the counter did not advance.
 */
export async function recordPasskeyUse(
  db: Db,
  id: number,
  use: { counter: number; backedUp: boolean; at: Date },
): Promise<boolean> {
  const advanced =
    use.counter === 0 ? eq(passkeys.counter, 0) : or(lt(passkeys.counter, use.counter), eq(passkeys.counter, 0));
  const rows = await db
    .update(passkeys)
    .set({ counter: use.counter, backedUp: use.backedUp, lastUsedAt: use.at })
    .where(and(eq(passkeys.id, id), advanced))
    .returning({ id: passkeys.id });
  return rows.length > 0;
}

/** Stores a new challenge (as a hash) and clears expired ones, so unused challenges never pile up. */
export async function insertChallenge(
  db: Db,
  challenge: {
    challengeHash: string;
    purpose: ChallengePurpose;
    binding: string;
    userId: number | null;
    now: Date;
    lifetimeMs: number;
  },
) {
  const { now } = challenge;
  await db.delete(webauthnChallenges).where(lt(webauthnChallenges.expiresAt, now));
  await db.insert(webauthnChallenges).values({
    challengeHash: challenge.challengeHash,
    purpose: challenge.purpose,
    binding: challenge.binding,
    userId: challenge.userId,
    createdAt: now,
    expiresAt: new Date(now.getTime() + challenge.lifetimeMs),
  });
}

/**
 * Uses up a challenge in one statement: it must exist for this purpose and binding (and user, for a
 * registration), be unexpired and unused. Only one of two racing uses succeeds.
 */
export async function consumeChallenge(
  db: Db,
  use: { challengeHash: string; purpose: ChallengePurpose; binding: string; userId: number | null; now: Date },
): Promise<boolean> {
  const rows = await db
    .update(webauthnChallenges)
    .set({ usedAt: use.now })
    .where(
      and(
        eq(webauthnChallenges.challengeHash, use.challengeHash),
        eq(webauthnChallenges.purpose, use.purpose),
        eq(webauthnChallenges.binding, use.binding),
        use.userId === null ? isNull(webauthnChallenges.userId) : eq(webauthnChallenges.userId, use.userId),
        isNull(webauthnChallenges.usedAt),
        gt(webauthnChallenges.expiresAt, use.now),
      ),
    )
    .returning({ id: webauthnChallenges.id });
  return rows.length > 0;
}

/** Why a challenge could not be used, for the audit log. */
export async function challengeRefusal(
  db: Db,
  challengeHash: string,
  purpose: ChallengePurpose,
  binding: string,
  now: Date,
): Promise<"unknown" | "used" | "expired" | "other browser"> {
  const [row] = await db
    .select({
      purpose: webauthnChallenges.purpose,
      binding: webauthnChallenges.binding,
      usedAt: webauthnChallenges.usedAt,
      expiresAt: webauthnChallenges.expiresAt,
    })
    .from(webauthnChallenges)
    .where(eq(webauthnChallenges.challengeHash, challengeHash));
  if (!row || row.purpose !== purpose) return "unknown";
  if (row.usedAt) return "used";
  if (row.expiresAt.getTime() <= now.getTime()) return "expired";
  return row.binding === binding ? "unknown" : "other browser";
}

/** Counts the user's passkeys (for a default name). */
export async function countPasskeys(db: Db, userId: number): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(passkeys).where(eq(passkeys.userId, userId));
  return Number(row?.n ?? 0);
}

/** Deletes every passkey and pending challenge of a user (erasure). */
export async function deletePasskeysOf(db: Executor, userId: number) {
  await db.delete(passkeys).where(eq(passkeys.userId, userId));
  await db.delete(webauthnChallenges).where(eq(webauthnChallenges.userId, userId));
}
