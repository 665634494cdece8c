import type { Db } from "@server/db/client";
import { type FeedRead, feedPage } from "@server/lib/paging";
import { sql } from "drizzle-orm";

/** One positioning transaction at a time, in every process (the audit chain's lock is 724013). */
const POSITION_LOCK = 724015;

/**
 * Gives every committed report without one the next feed positions, in id order (docs/integration.md and
 * features/audit/feed.ts: the same design as the audit feed). An UPDATE sees only committed rows, so a
 * report still being written gets a later position; positioning runs one transaction at a time under an
 * advisory lock, so when a position is visible every smaller one is.
 */
export async function positionReports(db: Db, batch = 5_000): Promise<number> {
  let total = 0;
  for (;;) {
    const done = await db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${POSITION_LOCK})`);
      const result = await tx.execute(sql`
        update call_reports r set position = u.position
        from (
          select id, nextval('report_feed_position') as position
          from (select id from call_reports where position is null order by id limit ${batch}) w
          order by id
        ) u
        where r.id = u.id
        returning r.id`);
      return (result as unknown as { rows: unknown[] }).rows.length;
    });
    total += done;
    if (done < batch) return total;
  }
}

type FeedRow = {
  id: number;
  at: string;
  site: string | null;
  unverified_origin: boolean;
  caller_number: string | null;
  claimed_name: string | null;
  note: string | null;
  position: number;
};

/** The organisation's reported calls after the cursor, oldest position first (GET /api/v1/reports). */
export async function reportsFeed(db: Db, p: { organisationId: number; after: number; limit: number }) {
  const [waiting] = await db.rows<{ waiting: boolean }>(
    sql`select exists (select 1 from call_reports where position is null) as waiting`,
  );
  if (waiting?.waiting) await positionReports(db);
  const [page] = await db.rows<NonNullable<FeedRead<FeedRow>>>(sql`
    with page as (
      select id, at, site, unverified_origin, caller_number, claimed_name, note, position from call_reports
      where organisation_id = ${p.organisationId}::int and position > ${p.after}::bigint
      order by position limit ${p.limit}::int
    )
    select (select coalesce(json_agg(page order by position), '[]'::json) from page) as items`);
  return feedPage(page, p, (r) => ({
    id: Number(r.id),
    at: new Date(r.at).toISOString(),
    site: r.site,
    unverifiedOrigin: r.unverified_origin,
    callerNumber: r.caller_number,
    claimedName: r.claimed_name,
    note: r.note,
  }));
}
