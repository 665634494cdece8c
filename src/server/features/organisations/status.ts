import type { Executor } from "@server/db/client";
import { organisations } from "@server/db/schema";
import { and, eq, type SQL, sql } from "drizzle-orm";
import type { OrganisationRow } from "./repository";

/**
 * The one owner of "is this organisation active" (issue 32 H2). An organisation is `active` or
 * `deactivated`; an admin's deactivation (of the employer or by domain) deactivates it and only an
 * admin's reactivation makes it active again. Every way in composes one of these: the TypeScript check
 * for a row already read, `organisationActive` for an id, and `organisationActiveSql` inside a statement
 * (the code look-up, sessions, API keys, webhook deliveries).
 */

export const ORGANISATION_STATUSES = ["active", "deactivated"] as const;
export type OrganisationStatus = (typeof ORGANISATION_STATUSES)[number];

/** Whether an organisation row read earlier is active; no row is not. */
export function organisationIsActive(organisation: Pick<OrganisationRow, "status"> | null | undefined): boolean {
  return organisation?.status === "active";
}

/**
 * A condition, true unless the organisation with the id `organisationId` (an SQL expression) is
 * deactivated: an account of no organisation (a platform admin) is not refused by it. Composed by every
 * statement that must refuse a deactivated organisation; one indexed probe of the primary key.
 */
export function organisationActiveSql(organisationId: SQL): SQL {
  return sql`not exists (select 1 from organisations org_status
    where org_status.id = ${organisationId} and org_status.status <> 'active')`;
}

/** Whether the organisation of an account (null: none, as for an admin) lets it act. */
export async function organisationActive(db: Executor, organisationId: number | null): Promise<boolean> {
  if (organisationId === null) return true;
  const [row] = await db
    .select({ status: organisations.status })
    .from(organisations)
    .where(eq(organisations.id, organisationId));
  return organisationIsActive(row);
}

/**
 * Marks the organisation deactivated (an admin's deactivation), keeping the first time it was; returns
 * whether it changed. Written before its accounts are deactivated, so from this commit on every way in
 * refuses it, whatever happens to the rest of the cascade.
 */
export async function deactivateOrganisation(db: Executor, id: number, now: Date): Promise<boolean> {
  const rows = await db
    .update(organisations)
    .set({ status: "deactivated", deactivatedAt: now })
    .where(and(eq(organisations.id, id), eq(organisations.status, "active")))
    .returning({ id: organisations.id });
  return rows.length > 0;
}

/** Makes a deactivated organisation active again (an admin's reactivation); returns it, or undefined. */
export async function reactivateOrganisation(db: Executor, id: number) {
  const [row] = await db
    .update(organisations)
    .set({ status: "active", deactivatedAt: null })
    .where(and(eq(organisations.id, id), eq(organisations.status, "deactivated")))
    .returning({ id: organisations.id, companyName: organisations.companyName, domain: organisations.domain });
  return row;
}

/** The deactivated organisations, most recently deactivated first (the admin dashboard's list). */
export function listDeactivatedOrganisations(db: Executor) {
  return db
    .select({
      id: organisations.id,
      companyName: organisations.companyName,
      domain: organisations.domain,
      deactivatedAt: organisations.deactivatedAt,
    })
    .from(organisations)
    .where(eq(organisations.status, "deactivated"))
    .orderBy(sql`${organisations.deactivatedAt} desc nulls last`, organisations.id);
}
