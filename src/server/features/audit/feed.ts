import type { Db } from "@server/db/client";
import { type FeedRead, feedPage } from "@server/lib/paging";
import type { AuditFeedItem } from "@shared/api-keys";
import { sql } from "drizzle-orm";
import { checkpointAudit, unchainedWaiting } from "./chain";

/**
 * The organisation's audit feed (GET /api/v1/audit): events in feed-position order after a cursor.
 *
 * Positions are given by the checkpoint job (chain.ts) only once the writing transaction has ended, one
 * positioning transaction at a time (an advisory lock), from one sequence: when a position is visible,
 * every smaller position is visible too. So "position > after" never skips an event that commits late (it
 * gets a later position) and never repeats one. So that an event reaches the feed at once rather than at
 * the job's next run (every 20 s), a page first positions what has committed (the same checkpoint,
 * safe across processes), unless nothing waits.
 */
export async function auditFeed(
  deps: Parameters<typeof checkpointAudit>[0] & { db: Db },
  p: { organisationId: number; after: number; limit: number },
): Promise<{ items: AuditFeedItem[]; next: string }> {
  if (await unchainedWaiting(deps.db)) await checkpointAudit(deps);
  const [page] = await deps.db.rows<NonNullable<FeedRead<FeedRow>>>(sql`
    with page as (
      select a.id, a.at, a.action, a.actor_email, a.target, a.outcome, a.detail, c.position
      from audit_chain c join audit_log a on a.id = c.event_id
      where c.organisation_id = ${p.organisationId}::int and c.position > ${p.after}::bigint
      order by c.position limit ${p.limit}::int
    )
    select (select coalesce(json_agg(page order by position), '[]'::json) from page) as items`);
  return feedPage(page, p, (r) => ({
    id: Number(r.id),
    at: new Date(r.at).toISOString(),
    action: r.action,
    actor: r.actor_email,
    target: r.target,
    outcome: r.outcome,
    detail: r.detail,
  }));
}

type FeedRow = {
  id: number;
  at: string;
  action: string;
  actor_email: string | null;
  target: string | null;
  outcome: string;
  detail: Record<string, unknown> | null;
  position: number;
};
