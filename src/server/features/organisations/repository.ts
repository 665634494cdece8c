import type { Executor } from "@server/db/client";
import { organisations } from "@server/db/schema";
import { hostUnderSql } from "@server/lib/origin";
import { and, desc, eq, isNull, lte, or, sql } from "drizzle-orm";

/** The one repository of the `organisations` table; other features call these functions. */

export type OrganisationRow = typeof organisations.$inferSelect;

export async function findOrganisation(db: Executor, id: number): Promise<OrganisationRow | undefined> {
  const [row] = await db.select().from(organisations).where(eq(organisations.id, id));
  return row;
}

export async function findOrganisationByDomain(db: Executor, domain: string): Promise<OrganisationRow | undefined> {
  const [row] = await db.select().from(organisations).where(eq(organisations.domain, domain));
  return row;
}

/** Locks the organisation's row until the transaction ends: what it guards happens one at a time. */
export async function lockOrganisation(tx: Executor, id: number) {
  await tx.select({ id: organisations.id }).from(organisations).where(eq(organisations.id, id)).for("update");
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

/**
 * Takes the organisation's reported-calls mail slot if its last summary is at least `gapMs` old: marks it
 * mailed now and says whether it did (of racing processes, one does).
 */
export async function claimReportsMailSlot(db: Executor, id: number, now: Date, gapMs: number): Promise<boolean> {
  const since = new Date(now.getTime() - gapMs);
  const rows = await db
    .update(organisations)
    .set({ reportsMailedAt: now })
    .where(
      and(
        eq(organisations.id, id),
        or(isNull(organisations.reportsMailedAt), lte(organisations.reportsMailedAt, since)),
      ),
    )
    .returning({ id: organisations.id });
  return rows.length > 0;
}

/**
 * The organisation an e-mail domain belongs to: the one whose domain is it or the longest parent of it
 * (`a.b.example` belongs to `b.example` rather than `example`), or undefined. SSO and discovery ask it.
 */
export async function findOrganisationOwningDomain(db: Executor, domain: string): Promise<OrganisationRow | undefined> {
  const d = domain.toLowerCase();
  const [row] = await db
    .select()
    .from(organisations)
    .where(or(eq(organisations.domain, d), hostUnderSql(sql`${d}::text`, sql`${organisations.domain}`)))
    .orderBy(desc(sql`length(${organisations.domain})`))
    .limit(1);
  return row;
}
