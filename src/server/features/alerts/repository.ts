import type { Db } from "@server/db/client";
import { alertSettings, alerts } from "@server/db/schema";
import { auditEventsSql, checkDeniedSql, lookUpOriginHostSql, reportSiteSql } from "@server/features/audit";
import { hostUnderSql, verifiedSitesSql } from "@server/features/sites";
import { queueDeliveries } from "@server/features/webhooks";
import { ALERT_DEFAULTS, type AlertKind, type AlertSettings } from "@shared/alerts";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { desc, eq, type SQL, sql } from "drizzle-orm";

export async function findSettings(
  db: Db,
  organisationId: number,
): Promise<AlertSettings & { deniedChecksPerHour: number }> {
  const [row] = await db
    .select({
      enabled: alertSettings.enabled,
      failedLookupsPer10Minutes: alertSettings.failedLookupsPer10Minutes,
      reportsPerHour: alertSettings.reportsPerHour,
      deniedChecksPerHour: alertSettings.deniedChecksPerHour,
    })
    .from(alertSettings)
    .where(eq(alertSettings.organisationId, organisationId));
  return row ?? { ...ALERT_DEFAULTS, deniedChecksPerHour: 1 };
}

export async function saveSettings(
  db: Db,
  organisationId: number,
  settings: AlertSettings & { deniedChecksPerHour?: number },
  now: Date,
) {
  const values = { ...settings, updatedAt: now };
  await db
    .insert(alertSettings)
    .values({ organisationId, ...values })
    .onConflictDoUpdate({ target: alertSettings.organisationId, set: values });
}

export async function recentAlerts(db: Db, organisationId: number, limit: number) {
  return db
    .select()
    .from(alerts)
    .where(eq(alerts.organisationId, organisationId))
    .orderBy(desc(alerts.at), desc(alerts.id))
    .limit(limit);
}

export type WindowCount = { organisation_id: number; count: number; sites: string[] };

/**
 * The client an alert counts once: an IPv4 address (IPv4-mapped IPv6 as its IPv4) or an IPv6 /48 (a site's
 * allocation), so one home network's many /64s cannot reach a threshold alone (issue 32, L9). `ip` is text
 * holding an address or a cut prefix (retention cuts stored addresses to /24 and /48, which this keeps).
 */
const networkSql = (ip: SQL) =>
  sql`case
    when ${ip} ~* '^::ffff:[0-9.]+$' then substring(${ip} from 8)
    when position(':' in ${ip}) > 0 then network(set_masklen(${ip}::inet, 48))::text
    else ${ip} end`;

/** Only one organisation's rows when `organisationId` is given. */
const onlyOrganisation = (column: SQL, organisationId?: number) =>
  organisationId === undefined ? sql`true` : sql`${column} = ${organisationId}::int`;

/**
 * Per organisation (or only `organisationId`'s), the distinct clients (`networkSql`) whose look-ups failed in
 * (from, to] on one of its verified sites (the Origin's host is the site or under it), and those sites. Read
 * from the audit rows the look-up statement writes anyway, so the look-up itself does no extra work.
 */
export async function failedLookupsByOrganisation(
  db: Db,
  from: Date,
  to: Date,
  organisationId?: number,
): Promise<WindowCount[]> {
  return db.rows<WindowCount>(sql`
    with f as (
      select ${lookUpOriginHostSql(sql`a`)} as host, ${networkSql(sql`a.ip`)} as client
      from ${auditEventsSql({ action: AUDIT_ACTIONS.verifyCode, outcome: "failure", after: from, until: to })} a
      where a.ip is not null
    ),
    hits as (
      select s.organisation_id, f.client, f.host
      from f join ${verifiedSitesSql()} s on ${hostUnderSql(sql`f.host`, sql`s.host`)}
      where ${onlyOrganisation(sql`s.organisation_id`, organisationId)}
    )
    select organisation_id, count(distinct client)::int as count, array_agg(distinct host) as sites
    from hits group by organisation_id`);
}

/** Per organisation (or only `organisationId`), the distinct clients that reported calls to it in (from, to], and from which sites. */
export async function reportsByOrganisation(
  db: Db,
  from: Date,
  to: Date,
  organisationId?: number,
): Promise<WindowCount[]> {
  return db.rows<WindowCount>(sql`
    select a.organisation_id, count(distinct ${networkSql(sql`a.ip`)})::int as count,
      coalesce(array_agg(distinct ${reportSiteSql(sql`a`)}) filter (where ${reportSiteSql(sql`a`)} is not null), '{}') as sites
    from ${auditEventsSql({ action: AUDIT_ACTIONS.reportCall, outcome: "success", after: from, until: to })} a
    where a.organisation_id is not null and a.ip is not null
      and ${onlyOrganisation(sql`a.organisation_id`, organisationId)}
    group by a.organisation_id`);
}

/**
 * Per organisation (or only `organisationId`), the calls events of `kind` in (from, to]: disowned calls, or
 * denied customer checks (each denial counts once, whatever its address or channel); `sites` holds the call ids.
 */
export async function callEventsByOrganisation(
  db: Db,
  kind: "disowned-calls" | "denied-checks",
  from: Date,
  to: Date,
  organisationId?: number,
): Promise<WindowCount[]> {
  const action = kind === "disowned-calls" ? AUDIT_ACTIONS.disownCall : AUDIT_ACTIONS.answerCheck;
  const denied = kind === "denied-checks" ? checkDeniedSql(sql`a`) : sql`true`;
  return db.rows<WindowCount>(sql`
    select a.organisation_id, count(*)::int as count,
      coalesce(array_agg(distinct a.target) filter (where a.target is not null), '{}') as sites
    from ${auditEventsSql({ action, outcome: "success", after: from, until: to })} a
    where ${denied} and a.organisation_id is not null
      and ${onlyOrganisation(sql`a.organisation_id`, organisationId)}
    group by a.organisation_id`);
}

export type RaisedAlert = {
  id: number;
  organisation_id: number;
  kind: AlertKind;
  at: Date;
  count: number;
  window_start: Date;
  window_end: Date;
  sites: string[];
  /** its `alert.raised` deliveries queued (the caller wakes the workers after the commit) */
  queued: number;
};

/**
 * Raises an alert unless one of this kind was raised for the organisation less than `quietMs` ago: the
 * claim of its slot, the alert and its `alert.raised` webhook delivery are one statement, so of several
 * processes exactly one raises it. Returns the alert, or undefined when it was too soon.
 */
export async function raiseAlert(
  db: Db,
  a: {
    organisationId: number;
    kind: AlertKind;
    now: Date;
    count: number;
    windowStart: Date;
    sites: string[];
    quietMs: number;
  },
): Promise<RaisedAlert | undefined> {
  const now = a.now.toISOString();
  const quietSince = new Date(a.now.getTime() - a.quietMs).toISOString();
  const rows = await db.rows<RaisedAlert>(sql`
    with slot as (
      insert into alert_slots (organisation_id, kind, last_raised_at)
      values (${a.organisationId}::int, ${a.kind}::text, ${now}::timestamptz)
      on conflict (organisation_id, kind) do update set last_raised_at = excluded.last_raised_at
        where alert_slots.last_raised_at <= ${quietSince}::timestamptz
      returning organisation_id
    ),
    raised as (
      insert into alerts (organisation_id, kind, at, count, window_start, window_end, sites)
      select organisation_id, ${a.kind}::text, ${now}::timestamptz, ${a.count}::int,
        ${a.windowStart.toISOString()}::timestamptz, ${now}::timestamptz,
        string_to_array(${a.sites.join(",")}::text, ',')
      from slot
      returning id, organisation_id, kind, at, count, window_start, window_end, sites
    ),
    ${deliveredSql(now)}`);
  const row = rows[0];
  return row ? { ...row, id: Number(row.id), sites: row.sites.filter((s) => s !== "") } : undefined;
}

/** Queues the `alert.raised` delivery of the alert in the CTE `raised` and wakes the workers; selects the alert. */
function deliveredSql(now: string) {
  return sql`queued as (${queueDeliveries({
    type: "alert.raised",
    now,
    from: sql`raised`,
    organisationId: sql`raised.organisation_id`,
    data: sql`jsonb_build_object('id', raised.id, 'kind', raised.kind, 'count', raised.count,
        'windowStart', to_char(raised.window_start at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        'windowEnd', to_char(raised.window_end at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
        || case when raised.kind in ('disowned-calls', 'denied-checks')
          then jsonb_build_object('callIds', to_jsonb(raised.sites)) else '{}'::jsonb end`,
  })})
    select raised.*, (select count(*) from queued)::int as queued from raised`;
}

export type OpenAlert = { id: number; organisation_id: number; kind: AlertKind; count: number; window_start: Date };

/** The newest alert of each kind and organisation raised after `since` (still within its quiet hour). */
export async function openAlerts(db: Db, since: Date): Promise<OpenAlert[]> {
  const rows = await db.rows<OpenAlert>(sql`
    select distinct on (organisation_id, kind) id, organisation_id, kind, count, window_start
    from alerts where at > ${since.toISOString()}::timestamptz
    order by organisation_id, kind, at desc, id desc`);
  return rows.map((r) => ({ ...r, id: Number(r.id), organisation_id: Number(r.organisation_id) }));
}

/**
 * Grows an alert within its quiet hour: when `count` is at least twice the count it was last delivered with,
 * it takes the new count, window end and sites, and is delivered again as `alert.raised`, in one statement
 * (the condition makes exactly one process win). Returns the alert, or undefined when it had not doubled.
 */
export async function growAlert(
  db: Db,
  a: { id: number; now: Date; count: number; sites: string[] },
): Promise<RaisedAlert | undefined> {
  const now = a.now.toISOString();
  const rows = await db.rows<RaisedAlert>(sql`
    with raised as (
      update alerts set count = ${a.count}::int, window_end = ${now}::timestamptz,
        sites = array(select distinct s from unnest(sites || string_to_array(${a.sites.join(",")}::text, ',')) s
          where s <> '' order by s)
      where id = ${a.id} and count * 2 <= ${a.count}::int
      returning id, organisation_id, kind, at, count, window_start, window_end, sites
    ),
    ${deliveredSql(now)}`);
  const row = rows[0];
  return row ? { ...row, id: Number(row.id), sites: row.sites.filter((s) => s !== "") } : undefined;
}
