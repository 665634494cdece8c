import type { Executor } from "@server/db/client";
import { scimTokens, scimUsers } from "@server/db/schema";
import { and, eq, inArray, isNull } from "drizzle-orm";

/** The one repository of `scim_tokens` and `scim_users`. */

export type ScimTokenRow = typeof scimTokens.$inferSelect;
export type ScimUserRow = typeof scimUsers.$inferSelect;

export async function findToken(db: Executor, organisationId: number): Promise<ScimTokenRow | undefined> {
  const [row] = await db.select().from(scimTokens).where(eq(scimTokens.organisationId, organisationId));
  return row;
}

export async function findTokenById(db: Executor, tokenId: string): Promise<ScimTokenRow | undefined> {
  const [row] = await db.select().from(scimTokens).where(eq(scimTokens.tokenId, tokenId));
  return row;
}

/** Stores the organisation's token, replacing the previous one (which stops working in the same statement). */
export async function saveToken(
  db: Executor,
  values: { organisationId: number; tokenId: string; tokenHash: string; createdBy: number; createdAt: Date },
) {
  await db
    .insert(scimTokens)
    .values({ ...values, lastUsedAt: null })
    .onConflictDoUpdate({
      target: scimTokens.organisationId,
      set: {
        tokenId: values.tokenId,
        tokenHash: values.tokenHash,
        createdBy: values.createdBy,
        createdAt: values.createdAt,
        lastUsedAt: null,
      },
    });
}

export async function deleteToken(db: Executor, organisationId: number): Promise<boolean> {
  const rows = await db
    .delete(scimTokens)
    .where(eq(scimTokens.organisationId, organisationId))
    .returning({ id: scimTokens.organisationId });
  return rows.length > 0;
}

/**
 * Replaces a token's stored hash by its HMAC (a token of the plain-SHA-256 scheme, at its first use since):
 * only while the row still holds `previousHash`, so a token rotated meanwhile is left alone.
 */
export async function rehashToken(db: Executor, tokenId: string, previousHash: string, hash: string) {
  await db
    .update(scimTokens)
    .set({ tokenHash: hash })
    .where(and(eq(scimTokens.tokenId, tokenId), eq(scimTokens.tokenHash, previousHash)));
}

/** Marks the token used now, at most once a minute (a sync of thousands of users writes little). */
export async function touchToken(db: Executor, tokenId: string, now: Date) {
  const row = await findTokenById(db, tokenId);
  if (row && (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= 60_000)) {
    await db.update(scimTokens).set({ lastUsedAt: now }).where(eq(scimTokens.tokenId, tokenId));
  }
}

// ---- what SCIM knows of accounts ----

export async function findScimUser(db: Executor, userId: number): Promise<ScimUserRow | undefined> {
  const [row] = await db.select().from(scimUsers).where(eq(scimUsers.userId, userId));
  return row;
}

export async function scimUsersOf(db: Executor, userIds: number[]): Promise<ScimUserRow[]> {
  if (userIds.length === 0) return [];
  return db.select().from(scimUsers).where(inArray(scimUsers.userId, userIds));
}

/** Ids of the organisation's live (neither deleted nor erased) accounts with this externalId. */
export async function userIdsByExternalId(db: Executor, organisationId: number, externalId: string) {
  const rows = await db
    .select({ userId: scimUsers.userId })
    .from(scimUsers)
    .where(
      and(
        eq(scimUsers.organisationId, organisationId),
        eq(scimUsers.externalId, externalId),
        isNull(scimUsers.deletedAt),
        isNull(scimUsers.erasedAt),
      ),
    );
  return rows.map((r) => r.userId);
}

export type ScimAttributes = {
  /** the userName as the provider wrote it */
  userName: string;
  /** the name attributes the provider has written */
  provisioned: string[];
  externalId: string | null;
  givenName: string | null;
  familyName: string | null;
  formattedName: string | null;
  displayName: string | null;
};

/** Creates or updates what SCIM knows of an account. */
export async function saveScimUser(
  db: Executor,
  values: ScimAttributes & { userId: number; organisationId: number; now: Date; deactivatedByScim?: boolean },
) {
  const { now, ...rest } = values;
  const set = {
    userName: rest.userName,
    provisioned: rest.provisioned,
    externalId: rest.externalId,
    givenName: rest.givenName,
    familyName: rest.familyName,
    formattedName: rest.formattedName,
    displayName: rest.displayName,
    updatedAt: now,
    ...(rest.deactivatedByScim === undefined ? {} : { deactivatedByScim: rest.deactivatedByScim }),
  };
  await db
    .insert(scimUsers)
    .values({ ...rest, deactivatedByScim: rest.deactivatedByScim ?? false, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({ target: scimUsers.userId, set });
}

export async function setDeactivatedByScim(db: Executor, userId: number, value: boolean, now: Date) {
  await db.update(scimUsers).set({ deactivatedByScim: value, updatedAt: now }).where(eq(scimUsers.userId, userId));
}

/** SCIM DELETE: the row stays as a tombstone, with the e-mail the account had (for the audit record). */
export async function markDeleted(db: Executor, userId: number, releasedUserName: string, now: Date) {
  await db
    .update(scimUsers)
    .set({ deletedAt: now, releasedUserName, updatedAt: now })
    .where(eq(scimUsers.userId, userId));
}

/**
 * Erasure: every personal value SCIM kept of the account goes; a tombstone with only ids and times stays
 * so that SCIM answers 404 for the account for ever. Returns the e-mail it had released, if any (the
 * audit log may name the account by it).
 */
export async function eraseScimUser(
  db: Executor,
  userId: number,
  organisationId: number | null,
  now: Date,
): Promise<string | null> {
  const before = await findScimUser(db, userId);
  if (before) {
    await db
      .update(scimUsers)
      .set({
        externalId: null,
        givenName: null,
        familyName: null,
        formattedName: null,
        displayName: null,
        userName: null,
        provisioned: [],
        releasedUserName: null,
        erasedAt: now,
        updatedAt: now,
      })
      .where(eq(scimUsers.userId, userId));
    return before.releasedUserName;
  }
  if (organisationId !== null) {
    await db.insert(scimUsers).values({ userId, organisationId, createdAt: now, updatedAt: now, erasedAt: now });
  }
  return null;
}
