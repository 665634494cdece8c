import type { Executor } from "@server/db/client";
import { employeeAccessCodes, employerInvitations, organisations, users } from "@server/db/schema";
import { and, eq, gt, isNull, lt, sql } from "drizzle-orm";

export type InvitationRow = typeof employerInvitations.$inferSelect;

/** An invitation that can still be used (not used, not expired). */
export async function findLiveInvitation(
  db: Executor,
  codeHash: string,
  now: Date,
): Promise<InvitationRow | undefined> {
  const [row] = await db
    .select()
    .from(employerInvitations)
    .where(
      and(
        eq(employerInvitations.codeHash, codeHash),
        isNull(employerInvitations.usedAt),
        gt(employerInvitations.expiresAt, now),
      ),
    );
  return row;
}

/** Ends every still-usable invitation of an e-mail (a new invitation replaces them). */
export async function expireInvitationsOf(db: Executor, email: string, now: Date) {
  await db
    .update(employerInvitations)
    .set({ expiresAt: now })
    .where(
      and(
        eq(employerInvitations.email, email),
        isNull(employerInvitations.usedAt),
        gt(employerInvitations.expiresAt, now),
      ),
    );
}

export async function insertInvitation(
  db: Executor,
  values: { email: string; codeHash: string; createdBy: number; createdAt: Date; expiresAt: Date },
) {
  await db.insert(employerInvitations).values(values);
}

/** Uses an invitation up; only one of several racing callers gets the row back. */
export async function claimInvitation(db: Executor, id: number, now: Date) {
  const [row] = await db
    .update(employerInvitations)
    .set({ usedAt: now })
    .where(
      and(eq(employerInvitations.id, id), isNull(employerInvitations.usedAt), gt(employerInvitations.expiresAt, now)),
    )
    .returning({ id: employerInvitations.id });
  return row;
}

export async function setInvitationUser(db: Executor, id: number, userId: number) {
  await db.update(employerInvitations).set({ usedBy: userId }).where(eq(employerInvitations.id, id));
}

export async function findOrganisationByDomain(db: Executor, domain: string) {
  const [row] = await db.select({ id: organisations.id }).from(organisations).where(eq(organisations.domain, domain));
  return row;
}

/** Inserts an organisation unless its domain is taken; returns its id, or undefined when taken. */
export async function insertOrganisation(
  db: Executor,
  values: { companyName: string; domain: string; website: string; websiteHost: string; createdAt: Date },
) {
  const [row] = await db
    .insert(organisations)
    .values(values)
    .onConflictDoNothing({ target: organisations.domain })
    .returning({ id: organisations.id });
  return row?.id;
}

export type AccessCodeLookup = {
  id: number;
  organisationId: number;
  maxUsers: number;
  usedCount: number;
  domain: string;
  website: string;
};

/**
 * An employee access code that has not expired and whose organisation still has an active employer
 * (a code of a deactivated employer admits nobody). It may be full: compare usedCount with maxUsers.
 */
export async function findUsableAccessCode(
  db: Executor,
  codeHash: string,
  now: Date,
): Promise<AccessCodeLookup | undefined> {
  const [row] = await db
    .select({
      id: employeeAccessCodes.id,
      organisationId: employeeAccessCodes.organisationId,
      maxUsers: employeeAccessCodes.maxUsers,
      usedCount: employeeAccessCodes.usedCount,
      domain: organisations.domain,
      website: organisations.website,
    })
    .from(employeeAccessCodes)
    .innerJoin(organisations, eq(organisations.id, employeeAccessCodes.organisationId))
    .where(
      and(
        eq(employeeAccessCodes.codeHash, codeHash),
        gt(employeeAccessCodes.expiresAt, now),
        sql`exists (select 1 from ${users} where ${users.organisationId} = ${employeeAccessCodes.organisationId}
                    and ${users.role} = 'superuser' and ${users.status} = 'active')`,
      ),
    );
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
