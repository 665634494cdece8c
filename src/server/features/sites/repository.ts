import type { Db } from "@server/db/client";
import { organisationSites } from "@server/db/schema";
import { hostUnderSql } from "@server/lib/origin";
import type { SiteMethod, SiteRecord } from "@shared/sites";
import { and, asc, count, eq, sql } from "drizzle-orm";

/** A database handle or an open transaction. */
export type Executor = Db | Parameters<Parameters<Db["transaction"]>[0]>[0];

export type SiteRow = typeof organisationSites.$inferSelect;

const recordColumns = {
  host: organisationSites.host,
  status: organisationSites.status,
  method: organisationSites.method,
  token: organisationSites.token,
};

/** The organisation's sites: its e-mail domain (`domain`) first, then the rest by host. */
export async function listSites(db: Executor, organisationId: number, domain: string): Promise<SiteRecord[]> {
  return db
    .select(recordColumns)
    .from(organisationSites)
    .where(eq(organisationSites.organisationId, organisationId))
    .orderBy(sql`${organisationSites.host} <> ${domain}`, asc(organisationSites.host));
}

export async function findSite(db: Executor, organisationId: number, host: string): Promise<SiteRow | undefined> {
  const [row] = await db
    .select()
    .from(organisationSites)
    .where(and(eq(organisationSites.organisationId, organisationId), eq(organisationSites.host, host)));
  return row;
}

export async function countSites(db: Executor, organisationId: number): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(organisationSites)
    .where(eq(organisationSites.organisationId, organisationId));
  return row?.n ?? 0;
}

/** Adds a site unless the organisation lists that host already; returns it, or undefined when taken. */
export async function insertSite(
  db: Executor,
  values: {
    organisationId: number;
    host: string;
    token: string;
    now: Date;
    /** set when the host is proved already (under a verified e-mail domain, or an admin's word) */
    method?: SiteMethod;
  },
): Promise<SiteRecord | undefined> {
  const [row] = await db
    .insert(organisationSites)
    .values({
      organisationId: values.organisationId,
      host: values.host,
      status: values.method ? "verified" : "pending",
      method: values.method ?? null,
      token: values.token,
      verifiedAt: values.method ? values.now : null,
      createdAt: values.now,
    })
    .onConflictDoNothing()
    .returning(recordColumns);
  return row;
}

export async function deleteSite(db: Executor, organisationId: number, host: string): Promise<boolean> {
  const rows = await db
    .delete(organisationSites)
    .where(and(eq(organisationSites.organisationId, organisationId), eq(organisationSites.host, host)))
    .returning({ id: organisationSites.id });
  return rows.length > 0;
}

/** Marks a site verified by `method` (a no-op for the method of a site verified already by another). */
export async function markVerified(db: Executor, id: number, method: SiteMethod, now: Date) {
  await db
    .update(organisationSites)
    .set({ status: "verified", method, verifiedAt: now, checkedAt: now })
    .where(eq(organisationSites.id, id));
}

/** Records that a site's proof was looked up now (found or not, for a pending site). */
export async function markChecked(db: Executor, id: number, now: Date) {
  await db.update(organisationSites).set({ checkedAt: now }).where(eq(organisationSites.id, id));
}

/** A site whose proof is gone: pending again, until proved anew. */
export async function markPending(db: Executor, id: number, now: Date) {
  await db
    .update(organisationSites)
    .set({ status: "pending", method: null, verifiedAt: null, checkedAt: now })
    .where(eq(organisationSites.id, id));
}

/**
 * An account at the organisation's e-mail domain (`domain`, the caller checked it is the organisation's)
 * proved its address: the domain, and any still-pending host under it, become verified by the e-mail domain.
 */
export async function verifyEmailDomain(db: Executor, organisationId: number, domain: string, now: Date) {
  await db.execute(sql`
    update ${organisationSites} s set status = 'verified', method = 'email-domain', verified_at = ${now.toISOString()}::timestamptz
    where s.organisation_id = ${organisationId} and s.status = 'pending'
      and ${hostUnderSql(sql`s.host`, sql`${domain}::text`)}`);
}

export type DueSite = { id: number; organisationId: number; host: string; token: string; method: SiteMethod };

/**
 * Claims up to `limit` sites proved by DNS or the file whose last look-up is older than `before`: their
 * `checked_at` moves to `now` in the same statement, so two processes never re-check the same site.
 */
export async function claimDueForRecheck(db: Db, before: Date, now: Date, limit: number): Promise<DueSite[]> {
  const rows = await db.rows<{ id: number; organisation_id: number; host: string; token: string; method: SiteMethod }>(
    sql`
      update ${organisationSites} s set checked_at = ${now.toISOString()}::timestamptz
      where s.id in (
        select id from ${organisationSites}
        where status = 'verified' and method in ('dns', 'well-known')
          and coalesce(checked_at, verified_at) < ${before.toISOString()}::timestamptz
        order by coalesce(checked_at, verified_at)
        limit ${limit}
        for update skip locked
      )
      returning s.id, s.organisation_id, s.host, s.token, s.method`,
  );
  return rows.map((r) => ({
    id: Number(r.id),
    organisationId: Number(r.organisation_id),
    host: r.host,
    token: r.token,
    method: r.method,
  }));
}
