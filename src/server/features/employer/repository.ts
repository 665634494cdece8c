import type { Db, Executor } from "@server/db/client";
import { employeeAccessCodes } from "@server/db/schema";
import { lockOrganisation } from "@server/features/organisations";
import { and, desc, eq, gt, lt, sql } from "drizzle-orm";

/** The organisation's newest employee access code, if any. */
export async function newestAccessCode(db: Db, organisationId: number) {
  const [row] = await db
    .select({
      codeSealed: employeeAccessCodes.codeSealed,
      maxUsers: employeeAccessCodes.maxUsers,
      usedCount: employeeAccessCodes.usedCount,
      expiresAt: employeeAccessCodes.expiresAt,
    })
    .from(employeeAccessCodes)
    .where(eq(employeeAccessCodes.organisationId, organisationId))
    .orderBy(desc(employeeAccessCodes.createdAt), desc(employeeAccessCodes.id))
    .limit(1);
  return row;
}

/**
 * Inserts a new access code unless the organisation has an active one (not expired, seats left).
 * The organisation row is locked for the check-and-insert, so two concurrent requests cannot both pass.
 * Returns false when an active code exists.
 */
export async function insertAccessCodeIfNoneActive(
  db: Db,
  values: {
    organisationId: number;
    createdBy: number;
    codeHash: string;
    codeSealed: string;
    maxUsers: number;
    createdAt: Date;
    expiresAt: Date;
  },
): Promise<boolean> {
  return db.transaction(async (tx) => {
    await lockOrganisation(tx, values.organisationId);
    const [active] = await tx
      .select({ id: employeeAccessCodes.id })
      .from(employeeAccessCodes)
      .where(
        and(
          eq(employeeAccessCodes.organisationId, values.organisationId),
          gt(employeeAccessCodes.expiresAt, values.createdAt),
          lt(employeeAccessCodes.usedCount, employeeAccessCodes.maxUsers),
        ),
      )
      .limit(1);
    if (active) return false;
    await tx.insert(employeeAccessCodes).values({ ...values, usedCount: 0 });
    return true;
  });
}

/**
 * An employee access code that has not expired (it may be full: compare usedCount with maxUsers), or
 * undefined.
 */
export async function findLiveAccessCode(db: Executor, codeHash: string, now: Date) {
  const [row] = await db
    .select({
      id: employeeAccessCodes.id,
      organisationId: employeeAccessCodes.organisationId,
      createdBy: employeeAccessCodes.createdBy,
      maxUsers: employeeAccessCodes.maxUsers,
      usedCount: employeeAccessCodes.usedCount,
    })
    .from(employeeAccessCodes)
    .where(and(eq(employeeAccessCodes.codeHash, codeHash), gt(employeeAccessCodes.expiresAt, now)));
  return row;
}

/**
 * Takes one seat of an access code in a single statement, so concurrent sign-ups never exceed maxUsers.
 * Returns the new count, or undefined when the code is full or expired.
 */
export async function claimSeat(db: Executor, id: number, now: Date) {
  const [row] = await db
    .update(employeeAccessCodes)
    .set({ usedCount: sql`${employeeAccessCodes.usedCount} + 1` })
    .where(
      and(
        eq(employeeAccessCodes.id, id),
        lt(employeeAccessCodes.usedCount, employeeAccessCodes.maxUsers),
        gt(employeeAccessCodes.expiresAt, now),
      ),
    )
    .returning({ usedCount: employeeAccessCodes.usedCount });
  return row?.usedCount;
}
