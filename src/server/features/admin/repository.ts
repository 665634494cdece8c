import type { Db } from "@server/db/client";
import { organisationSites, organisations, sessions, users } from "@server/db/schema";
import { containsPattern } from "@server/lib/paging";
import type { AccountRecord } from "@shared/admin";
import { and, asc, count, eq, ilike, isNotNull, or, type SQL, sql } from "drizzle-orm";

const accountColumns = {
  id: users.id,
  fullName: users.fullName,
  email: users.email,
  companyName: sql<string>`coalesce(${organisations.companyName}, '')`,
  website: sql<string>`coalesce(${organisations.website}, '')`,
  organisationId: users.organisationId,
  /** whether a verified site of the organisation is the website's host or a parent of it */
  emailVerified: sql<boolean>`${users.emailVerifiedAt} is not null`,
  websiteVerified: sql<boolean>`exists (
    select 1 from ${organisationSites} s
    where s.organisation_id = ${organisations.id} and s.status = 'verified'
      and (${organisations.websiteHost} = s.host or right(${organisations.websiteHost}, length(s.host) + 1) = '.' || s.host)
  )`,
};

/**
 * Employer accounts (superusers) in one state. Pending ones are listed whether or not their e-mail is
 * verified yet (`emailVerified` says which): the admin sees who is waiting, and activation itself still
 * needs a verified address.
 */
function employerFilter(state: "pending" | "active", q: string | undefined): SQL | undefined {
  const base =
    state === "pending"
      ? and(eq(users.role, "superuser"), eq(users.status, "pending"))
      : and(eq(users.role, "superuser"), eq(users.status, "active"));
  if (!q) return base;
  const pattern = containsPattern(q);
  return and(
    base,
    or(ilike(users.fullName, pattern), ilike(users.email, pattern), ilike(organisations.website, pattern)),
  );
}

export async function listEmployers(
  db: Db,
  state: "pending" | "active",
  opts: { q?: string; limit?: number; offset?: number } = {},
): Promise<AccountRecord[]> {
  const query = db
    .select(accountColumns)
    .from(users)
    .leftJoin(organisations, eq(organisations.id, users.organisationId))
    .where(employerFilter(state, opts.q))
    .orderBy(asc(users.id));
  return opts.limit === undefined ? query : query.limit(opts.limit).offset(opts.offset ?? 0);
}

export async function countEmployers(db: Db, state: "pending" | "active", q?: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(users)
    .leftJoin(organisations, eq(organisations.id, users.organisationId))
    .where(employerFilter(state, q));
  return row?.n ?? 0;
}

/** Activates a pending, e-mail-verified superuser; returns it, or undefined. */
export async function activateEmployer(db: Db, id: number, now: Date) {
  const [row] = await db
    .update(users)
    .set({ status: "active", activatedAt: now })
    .where(
      and(eq(users.id, id), eq(users.role, "superuser"), eq(users.status, "pending"), isNotNull(users.emailVerifiedAt)),
    )
    .returning({ id: users.id, email: users.email, organisationId: users.organisationId });
  return row;
}

/**
 * Deactivates a pending or active employer (superuser) and every other account of its organisation,
 * and ends all their sessions, in one statement. Returns the employer and how many accounts it
 * deactivated (the employer included), or undefined when `id` is no such employer.
 */
export async function deactivateEmployer(db: Db, id: number, now: Date) {
  const rows = await db.rows<{ id: number; email: string; organisation_id: number | null; count: number }>(
    sql`
      with employer as (
        select id, email, organisation_id from ${users}
        where id = ${id} and role = 'superuser' and status <> 'deactivated'
      ), gone as (
        update ${users} u set status = 'deactivated', deactivated_at = ${now.toISOString()}::timestamptz
        from employer e
        where u.status <> 'deactivated' and u.role in ('superuser', 'client')
          and (u.id = e.id or u.organisation_id = e.organisation_id)
        returning u.id
      ), ended as (
        delete from ${sessions} where user_id in (select id from gone)
      )
      select e.id, e.email, e.organisation_id, (select count(*) from gone) as count from employer e`,
  );
  const row = rows[0];
  return row
    ? { id: Number(row.id), email: row.email, organisationId: row.organisation_id, count: Number(row.count) }
    : undefined;
}

/**
 * Deactivates every superuser and client whose e-mail domain is exactly `domain` and ends their sessions,
 * in one statement. Admin accounts (and so the caller) are never touched. Returns the ids deactivated.
 */
export async function deactivateDomain(db: Db, domain: string, now: Date, callerId: number): Promise<number[]> {
  const rows = await db.rows<{ id: number }>(sql`
      with gone as (
        update ${users} set status = 'deactivated', deactivated_at = ${now.toISOString()}::timestamptz
        where role in ('superuser', 'client') and status <> 'deactivated' and id <> ${callerId}
          and regexp_replace(email, '^.*@', '') = ${domain}
        returning id
      ), ended as (
        delete from ${sessions} where user_id in (select id from gone)
      )
      select id from gone order by id`);
  return rows.map((r) => r.id);
}

export async function stats(db: Db) {
  const [row] = await db
    .select({
      totalGenerated: sql<string>`coalesce(sum(${users.codesGenerated}), 0)`,
      totalVerified: sql<string>`coalesce(sum(${users.codesVerified}), 0)`,
    })
    .from(users);
  return { totalGenerated: Number(row?.totalGenerated ?? 0), totalVerified: Number(row?.totalVerified ?? 0) };
}
