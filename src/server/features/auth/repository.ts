import type { Db, Executor } from "@server/db/client";
import { verificationTokens } from "@server/db/schema";
import { and, eq, gt, lt, sql } from "drizzle-orm";

// ---- verification tokens (sign-in codes, e-mail verification, password reset) ----

export type TokenPurpose = (typeof verificationTokens.$inferSelect)["purpose"];

/** Stores the token of (purpose, target), replacing any previous one. */
export async function upsertToken(
  db: Db,
  values: { purpose: TokenPurpose; target: string; secretHash: string; expiresAt: Date; createdAt: Date },
) {
  const row = { ...values, tries: 0 };
  await db
    .insert(verificationTokens)
    .values(row)
    .onConflictDoUpdate({ target: [verificationTokens.purpose, verificationTokens.target], set: row });
}

const tokenOf = (purpose: TokenPurpose, target: string) =>
  and(eq(verificationTokens.purpose, purpose), eq(verificationTokens.target, target));

/** Counts one try on the live token of (purpose, target) with tries left; returns it, or undefined. */
export async function countTokenTry(db: Db, purpose: TokenPurpose, target: string, now: Date, maxTries: number) {
  const [row] = await db
    .update(verificationTokens)
    .set({ tries: sql`${verificationTokens.tries} + 1` })
    .where(and(tokenOf(purpose, target), gt(verificationTokens.expiresAt, now), lt(verificationTokens.tries, maxTries)))
    .returning({
      id: verificationTokens.id,
      secretHash: verificationTokens.secretHash,
      tries: verificationTokens.tries,
    });
  return row;
}

export async function tokenExists(db: Db, purpose: TokenPurpose, target: string): Promise<boolean> {
  const [row] = await db.select({ id: verificationTokens.id }).from(verificationTokens).where(tokenOf(purpose, target));
  return row !== undefined;
}

/** Whether a live (unexpired) token of (purpose, target) is waiting. */
export async function liveTokenExists(db: Db, purpose: TokenPurpose, target: string, now: Date): Promise<boolean> {
  const [row] = await db
    .select({ id: verificationTokens.id })
    .from(verificationTokens)
    .where(and(tokenOf(purpose, target), gt(verificationTokens.expiresAt, now)));
  return row !== undefined;
}

/** Deletes a token, only if it still has this hash; whether it did (one of two racing callers does). */
export async function deleteTokenWithHash(db: Db, id: number, secretHash: string): Promise<boolean> {
  const used = await db
    .delete(verificationTokens)
    .where(and(eq(verificationTokens.id, id), eq(verificationTokens.secretHash, secretHash)))
    .returning({ id: verificationTokens.id });
  return used.length > 0;
}

export async function deleteToken(db: Db, id: number) {
  await db.delete(verificationTokens).where(eq(verificationTokens.id, id));
}

/** Deletes the live token of this purpose with this hash; returns its target, or null. */
export async function takeTokenByHash(db: Db, purpose: TokenPurpose, secretHash: string, now: Date) {
  const [row] = await db
    .delete(verificationTokens)
    .where(
      and(
        eq(verificationTokens.purpose, purpose),
        eq(verificationTokens.secretHash, secretHash),
        gt(verificationTokens.expiresAt, now),
      ),
    )
    .returning({ target: verificationTokens.target });
  return row?.target ?? null;
}

export async function deleteTokensOf(db: Db, purpose: TokenPurpose, target: string) {
  await db.delete(verificationTokens).where(tokenOf(purpose, target));
}

export async function deleteExpiredTokens(db: Db, now: Date) {
  await db.delete(verificationTokens).where(lt(verificationTokens.expiresAt, now));
}

/** Deletes every token of a user, whatever its purpose (erasure). */
export async function deleteTokensOfUser(db: Executor, userId: number) {
  await db.delete(verificationTokens).where(eq(verificationTokens.target, String(userId)));
}
