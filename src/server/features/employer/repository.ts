import type { Db } from "@server/db/client";
import { employeeAccessCodes, organisations, users } from "@server/db/schema";
import { deleteSessionsOf } from "@server/features/sessions/repository";
import { containsPattern } from "@server/lib/paging";
import type { EmployeeRecord } from "@shared/employer";
import { and, asc, count, desc, eq, gt, ilike, lt, type SQL } from "drizzle-orm";

export async function findOrganisation(db: Db, id: number) {
  const [row] = await db
    .select({ id: organisations.id, companyName: organisations.companyName, website: organisations.website })
    .from(organisations)
    .where(eq(organisations.id, id));
  return row;
}

/** Active employees (clients) of an organisation, optionally those whose e-mail contains `q`. */
function employeeFilter(organisationId: number, q: string | undefined): SQL | undefined {
  const base = and(eq(users.organisationId, organisationId), eq(users.role, "client"), eq(users.status, "active"));
  return q ? and(base, ilike(users.email, containsPattern(q))) : base;
}

export async function listEmployees(
  db: Db,
  organisationId: number,
  opts: { q?: string; limit?: number; offset?: number } = {},
): Promise<EmployeeRecord[]> {
  const query = db
    .select({
      id: users.id,
      fullName: users.fullName,
      email: users.email,
      codesGenerated: users.codesGenerated,
      codesVerified: users.codesVerified,
    })
    .from(users)
    .where(employeeFilter(organisationId, opts.q))
    .orderBy(asc(users.id));
  return opts.limit === undefined ? query : query.limit(opts.limit).offset(opts.offset ?? 0);
}

export async function countEmployees(db: Db, organisationId: number, q?: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(users).where(employeeFilter(organisationId, q));
  return row?.n ?? 0;
}

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
    await tx
      .select({ id: organisations.id })
      .from(organisations)
      .where(eq(organisations.id, values.organisationId))
      .for("update");
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

/** Deactivates an active employee of exactly this organisation and ends its sessions; returns it, or undefined. */
export async function deactivateEmployee(db: Db, organisationId: number, id: number, now: Date) {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(users)
      .set({ status: "deactivated", deactivatedAt: now })
      .where(
        and(
          eq(users.id, id),
          eq(users.organisationId, organisationId),
          eq(users.role, "client"),
          eq(users.status, "active"),
        ),
      )
      .returning({ id: users.id, email: users.email });
    if (row) await deleteSessionsOf(tx, row.id);
    return row;
  });
}
