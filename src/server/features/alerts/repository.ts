import type { Db } from "@server/db/client";
import { alertSettings, alerts } from "@server/db/schema";
import { queueDeliveries, wakeWorkers } from "@server/features/webhooks";
import { ipKeySql } from "@server/lib/ip";
import { ALERT_DEFAULTS, type AlertKind, type AlertSettings } from "@shared/alerts";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { desc, eq, sql } from "drizzle-orm";

export async function findSettings(db: Db, organisationId: number): Promise<AlertSettings> {
  const [row] = await db
    .select({
      enabled: alertSettings.enabled,
      failedLookupsPer10Minutes: alertSettings.failedLookupsPer10Minutes,
      reportsPerHour: alertSettings.reportsPerHour,
    })
    .from(alertSettings)
    .where(eq(alertSettings.organisationId, organisationId));
  return row ?? { ...ALERT_DEFAULTS };
}

export async function saveSettings(db: Db, organisationId: number, settings: AlertSettings, now: Date) {
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
 * Per organisation, the distinct client addresses whose look-ups failed in (from, to] on one of its
 * verified sites (the Origin's host is the site or under it), and those sites. Read from the audit rows
 * the look-up statement writes anyway, so the look-up itself does no extra work.
 */
export async function failedLookupsByOrganisation(db: Db, from: Date, to: Date): Promise<WindowCount[]> {
  return db.rows<WindowCount>(sql`
    with f as (
      select lower(substring(a.detail->>'origin' from '^https?://([^/:]+)')) as host, ${ipKeySql(sql`a.ip`)} as client
      from audit_log a
      where a.action = ${AUDIT_ACTIONS.verifyCode} and a.outcome = 'failure' and a.ip is not null
        and a.at > ${from.toISOString()}::timestamptz and a.at <= ${to.toISOString()}::timestamptz
    ),
    hits as (
      select s.organisation_id, f.client, f.host
      from f join organisation_sites s
        on s.status = 'verified' and (f.host = s.host or right(f.host, length(s.host) + 1) = '.' || s.host)
    )
    select organisation_id, count(distinct client)::int as count, array_agg(distinct host) as sites
    from hits group by organisation_id`);
}

/** Per organisation, the distinct client addresses that reported calls to it in (from, to], and from which sites. */
export async function reportsByOrganisation(db: Db, from: Date, to: Date): Promise<WindowCount[]> {
  return db.rows<WindowCount>(sql`
    select a.organisation_id, count(distinct ${ipKeySql(sql`a.ip`)})::int as count,
      coalesce(array_agg(distinct a.detail->>'site') filter (where a.detail->>'site' is not null), '{}') as sites
    from audit_log a
    where a.action = ${AUDIT_ACTIONS.reportCall} and a.outcome = 'success' and a.organisation_id is not null
      and a.ip is not null
      and a.at > ${from.toISOString()}::timestamptz and a.at <= ${to.toISOString()}::timestamptz
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
  const rows = await db.rows<RaisedAlert & { notified: number }>(sql`
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
    queued as (${queueDeliveries({
      type: "alert.raised",
      now,
      from: sql`raised`,
      organisationId: sql`raised.organisation_id`,
      data: sql`jsonb_build_object('id', raised.id, 'kind', raised.kind, 'count', raised.count,
        'windowStart', to_char(raised.window_start at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        'windowEnd', to_char(raised.window_end at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`,
    })}),
    notified as (${wakeWorkers(sql`queued`)})
    select raised.*, (select count(*) from notified)::int as notified from raised`);
  const row = rows[0];
  return row ? { ...row, id: Number(row.id), sites: row.sites.filter((s) => s !== "") } : undefined;
}
