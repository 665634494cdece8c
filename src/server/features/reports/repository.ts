import type { Db } from "@server/db/client";
import { callReports } from "@server/db/schema";
import { auditEventsSql } from "@server/features/audit";
import { claimReportsMailSlot } from "@server/features/organisations/repository";
import { verifiedSitesSql } from "@server/features/sites";
import { queueDeliveries } from "@server/features/webhooks";
import { ipKeySql } from "@server/lib/ip";
import { escapeLike } from "@server/lib/paging";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { and, eq, isNull, type SQL, sql } from "drizzle-orm";

type ReportRow = {
  id: number;
  at: Date;
  site: string | null;
  unverified_origin: boolean;
  caller_number: string | null;
  claimed_name: string | null;
  note: string | null;
};

/**
 * The organisation owning the most specific of these hosts among verified sites (`hosts` lists a host and
 * its parent domains), or null: none, or two organisations claim that same host.
 */
export async function organisationOfSite(db: Db, hosts: string[]): Promise<number | null> {
  if (hosts.length === 0) return null;
  const rows = await db.rows<{ organisation_id: number; host: string }>(sql`
    select organisation_id, host from ${verifiedSitesSql()} s
    where host = any(string_to_array(${hosts.join(",")}::text, ','))
    order by length(host) desc`);
  const best = rows.filter((r) => r.host === rows[0]?.host);
  const owners = new Set(best.map((r) => r.organisation_id));
  return owners.size === 1 ? (best[0]?.organisation_id ?? null) : null;
}

const rowsOf = <T>(result: unknown) => (result as { rows: T[] }).rows;

/** The reports of a destination: an organisation, or the admins (null). */
const toDestination = (organisationId: number | null) =>
  organisationId === null ? sql`organisation_id is null` : sql`organisation_id = ${organisationId}::int`;

/**
 * Stores a report within its destination's budget (at most `budget` reports since `since`), shedding the
 * heaviest sending network first: while the destination is full, a report from the network (or one of
 * the networks) that sent the most in that window is refused (null), and one from any other network is
 * stored in the place of the newest report of the heaviest network. One report at a time per destination
 * (an advisory lock), so concurrent reports cannot overshoot. For an organisation whose webhook takes
 * `call.reported`, the delivery is queued in the insert statement (and the workers woken).
 */
export async function storeReport(
  db: Db,
  p: {
    now: Date;
    organisationId: number | null;
    site: string | null;
    source: string;
    unverifiedOrigin: boolean;
    /** where the customer sent it from (default: the widget) */
    via?: "widget" | "call-status";
    callerNumber?: string;
    claimedName?: string;
    note?: string;
  },
  limits: { budget: number; since: Date },
): Promise<{ id: number; shed: number | null; queued: number } | null> {
  const destination = toDestination(p.organisationId);
  const since = limits.since.toISOString();
  return db.transaction(async (tx) => {
    await tx.execute(
      sql`select pg_advisory_xact_lock(7240, hashtext(${`call_reports:${p.organisationId ?? "admins"}`}::text))`,
    );
    const [load] = rowsOf<{ total: number; heaviest: number; mine: number; heaviest_source: string | null }>(
      await tx.execute(sql`
        with w as (
          select source, count(*)::int as n from call_reports
          where ${destination} and at > ${since}::timestamptz group by source
        )
        select coalesce(sum(n), 0)::int as total,
          coalesce(max(n) filter (where source is not null), 0)::int as heaviest,
          coalesce(max(n) filter (where source = ${p.source}::text), 0)::int as mine,
          (select source from w where source is not null order by n desc, source limit 1) as heaviest_source
        from w`),
    );
    let shed: number | null = null;
    if (load && load.total >= limits.budget) {
      if (load.heaviest_source === null || load.mine >= load.heaviest) return null;
      const [gone] = rowsOf<{ id: string | number }>(
        await tx.execute(sql`
          delete from call_reports where id = (
            select id from call_reports
            where ${destination} and at > ${since}::timestamptz and source = ${load.heaviest_source}::text
            order by at desc, id desc limit 1)
          returning id`),
      );
      shed = gone ? Number(gone.id) : null;
    }
    const now = p.now.toISOString();
    const [row] = rowsOf<{ id: string | number; queued: number }>(
      await tx.execute(sql`
        with ins as (
          insert into call_reports
            (at, organisation_id, site, caller_number, claimed_name, note, source, unverified_origin, via)
          values (${now}::timestamptz, ${p.organisationId}::int, ${p.site}::text, ${p.callerNumber ?? null}::text,
            ${p.claimedName ?? null}::text, ${p.note ?? null}::text, ${p.source}::text, ${p.unverifiedOrigin}::boolean,
            ${p.via ?? "widget"}::text)
          returning *
        ),
        queued as (${queueDeliveries({
          type: "call.reported",
          now,
          from: sql`ins`,
          organisationId: sql`ins.organisation_id`,
          data: sql`jsonb_build_object('id', ins.id, 'at', ${now}::text, 'site', ins.site,
            'callerNumber', ins.caller_number, 'claimedName', ins.claimed_name, 'note', ins.note, 'via', ins.via)`,
        })})
        select ins.id, (select count(*) from queued)::int as queued from ins`),
    );
    if (!row) throw new Error("report not stored");
    return { id: Number(row.id), shed, queued: Number(row.queued) };
  });
}

/** How many reports a destination holds since `since` (its budget's window). */
export async function countReportsSince(db: Db, organisationId: number | null, since: Date): Promise<number> {
  const rows = await db.rows<{ n: number }>(sql`
    select count(*)::int as n from call_reports
    where ${toDestination(organisationId)} and at > ${since.toISOString()}::timestamptz`);
  return rows[0]?.n ?? 0;
}

/** The reports of an organisation (null: the unrouted ones), optionally whose number contains `digits`. */
function reportsWhere(organisationId: number | null, q?: string): SQL {
  const owner = toDestination(organisationId);
  if (!q) return owner;
  const digits = q.replace(/\D/g, "");
  // "+44 20 7946" finds "+44 (0)20 7946 0000"; text without digits is looked for as it is.
  const match = digits
    ? sql`regexp_replace(coalesce(caller_number, ''), '\\D', '', 'g') like ${`%${digits}%`}`
    : sql`caller_number ilike ${`%${escapeLike(q)}%`}`;
  return sql`${owner} and ${match}`;
}

export async function listReports(
  db: Db,
  organisationId: number | null,
  p: { q?: string; limit: number; offset: number },
): Promise<ReportRow[]> {
  return db.rows<ReportRow>(sql`
    select id, at, site, unverified_origin, caller_number, claimed_name, note from call_reports
    where ${reportsWhere(organisationId, p.q)}
    order by at desc, id desc limit ${p.limit} offset ${p.offset}`);
}

export async function countReports(db: Db, organisationId: number | null, q?: string): Promise<number> {
  const rows = await db.rows<{ n: number }>(
    sql`select count(*)::int as n from call_reports where ${reportsWhere(organisationId, q)}`,
  );
  return rows[0]?.n ?? 0;
}

/**
 * The caller numbers reported most to an organisation since `since`: numbers compared by their digits, each
 * counted once per reporting address (IPv6 by /64, from the report's audit row), most reported first.
 */
export async function mostReportedNumbers(db: Db, organisationId: number, since: Date, limit: number) {
  return db.rows<{ number: string; reports: number }>(sql`
    with r as (
      select regexp_replace(r.caller_number, '[^0-9]', '', 'g') as digits, r.caller_number, ${ipKeySql(sql`a.ip`)} as client
      from call_reports r
      join ${auditEventsSql({ action: AUDIT_ACTIONS.reportCall, outcome: "success" })} a on a.target = r.id::text
      where r.organisation_id = ${organisationId}::int and r.at >= ${since.toISOString()}::timestamptz
        and r.caller_number is not null and a.ip is not null
    )
    select min(caller_number) as number, count(distinct client)::int as reports
    from r where digits <> ''
    group by digits order by reports desc, digits limit ${limit}::int`);
}

/** The organisations with reports their superusers have not been told about. */
export async function organisationsWithUnmailedReports(db: Db): Promise<number[]> {
  const rows = await db.rows<{ organisation_id: number }>(sql`
    select distinct organisation_id from call_reports where mailed_at is null and organisation_id is not null`);
  return rows.map((r) => r.organisation_id);
}

/**
 * Claims the unmailed reports of an organisation for one summary mail, if its last one is at least
 * `gapMs` old: marks them mailed and the organisation mailed now, in one transaction (one process wins).
 * Returns the claimed reports (none when it is too soon or there are none).
 */
export async function claimReportsToMail(db: Db, organisationId: number, now: Date, gapMs: number) {
  return db.transaction(async (tx) => {
    const [waiting] = await tx
      .select({ id: callReports.id })
      .from(callReports)
      .where(and(eq(callReports.organisationId, organisationId), isNull(callReports.mailedAt)))
      .limit(1);
    if (!waiting || !(await claimReportsMailSlot(tx, organisationId, now, gapMs))) return [];
    return tx
      .update(callReports)
      .set({ mailedAt: now })
      .where(and(eq(callReports.organisationId, organisationId), isNull(callReports.mailedAt)))
      .returning({ id: callReports.id, at: callReports.at, site: callReports.site });
  });
}

export type { ReportRow };

/** Deletes the reports older than `cutoff`. */
export async function deleteReportsBefore(db: Db, cutoff: Date) {
  await db.rows(sql`delete from call_reports where at < ${cutoff.toISOString()}::timestamptz`);
}

/** An organisation's reports at or after `since`, as a subquery another feature's statement reads from (columns: id, at). */
export function organisationReportsSql(organisationId: number, since: Date): SQL {
  return sql`(select id, at from call_reports
    where organisation_id = ${organisationId}::int and at >= ${since.toISOString()}::timestamptz)`;
}
