import { type Actor, auditActor, type Deps } from "@server/context";
import { organisationFor } from "@server/features/organisations";
import { notifyOrganisationAdmins } from "@server/features/users";
import { wakeWorkersAfterCommit } from "@server/features/webhooks";
import { alertMail } from "@server/mail/templates";
import {
  ALERT_LIMITS,
  type AlertKind,
  type AlertRecord,
  type AlertSettingsBody,
  type AlertsAnswer,
} from "@shared/alerts";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { paths } from "@shared/paths";
import * as repo from "./repository";

/** The organisation's alert settings and its recent alerts (an admin names the organisation). */
export async function alertsOf(deps: Deps, actor: Actor, query: { organisationId?: number }): Promise<AlertsAnswer> {
  const organisationId = organisationFor(actor, { requested: query.organisationId });
  const [settings, recent] = await Promise.all([
    repo.findSettings(deps.db, organisationId),
    repo.recentAlerts(deps.db, organisationId, ALERT_LIMITS.recentShown),
  ]);
  return { settings, recent: recent.map(toRecord) };
}

/** Changes the settings the body names (others keep their values), audited. */
export async function saveAlertSettings(deps: Deps, actor: Actor, body: AlertSettingsBody): Promise<AlertsAnswer> {
  const organisationId = organisationFor(actor);
  const before = await repo.findSettings(deps.db, organisationId);
  const after = { ...before, ...body };
  await repo.saveSettings(deps.db, organisationId, after, deps.clock.now());
  await deps.audit.record({
    ...auditActor(actor),
    action: AUDIT_ACTIONS.changeAlertSettings,
    organisationId,
    outcome: "success",
    detail: { before, after },
  });
  return alertsOf(deps, actor, {});
}

function toRecord(a: { id: number; kind: string; at: Date; count: number; windowStart: Date; windowEnd: Date }) {
  return {
    id: Number(a.id),
    kind: a.kind as AlertKind,
    at: a.at.toISOString(),
    count: a.count,
    windowStart: a.windowStart.toISOString(),
    windowEnd: a.windowEnd.toISOString(),
  } satisfies AlertRecord;
}

type Settings = Awaited<ReturnType<typeof repo.findSettings>>;
const WINDOWS: Record<AlertKind, { ms: number; threshold: (s: Settings) => number }> = {
  "failed-lookups": { ms: ALERT_LIMITS.failedLookupsWindowMs, threshold: (s) => s.failedLookupsPer10Minutes },
  reports: { ms: ALERT_LIMITS.reportsWindowMs, threshold: (s) => s.reportsPerHour },
  "disowned-calls": { ms: ALERT_LIMITS.callsWindowMs, threshold: () => ALERT_LIMITS.disownedCallsThreshold },
  "denied-checks": { ms: ALERT_LIMITS.callsWindowMs, threshold: (s) => s.deniedChecksPerHour },
};

/** Each kind's count per organisation in (from, to] (only `organisationId`'s when given). */
const COUNTERS: Record<
  AlertKind,
  (db: Deps["db"], from: Date, to: Date, organisationId?: number) => Promise<repo.WindowCount[]>
> = {
  "failed-lookups": repo.failedLookupsByOrganisation,
  reports: repo.reportsByOrganisation,
  "disowned-calls": (db, from, to, id) => repo.callEventsByOrganisation(db, "disowned-calls", from, to, id),
  "denied-checks": (db, from, to, id) => repo.callEventsByOrganisation(db, "denied-checks", from, to, id),
};

/**
 * The alerts job (every 20 s in every process): counts, per organisation, the distinct clients (an IPv4
 * address, an IPv6 /48) of failed look-ups on its verified sites in the last 10 minutes and of reports to it
 * in the last hour, and raises an alert of each kind whose threshold is reached, at most one per kind per
 * organisation per hour (one process wins the claim). Within that hour the alert grows instead: counted
 * from its window's start, each time its count doubles it takes the new count and is sent again, so an
 * alert raised early (by one network, say) cannot mute a larger attack for the hour (issue 32, L9). Each
 * raise and growth is audited, e-mailed to the organisation's superusers and delivered as the webhook event
 * `alert.raised`. Returns how many it raised or grew.
 */
export async function raiseDueAlerts(deps: Deps): Promise<number> {
  const now = deps.clock.now();
  const since = (kind: AlertKind) => new Date(now.getTime() - WINDOWS[kind].ms);
  const kinds = Object.keys(COUNTERS) as AlertKind[];
  const [open, ...counted] = await Promise.all([
    repo.openAlerts(deps.db, new Date(now.getTime() - ALERT_LIMITS.quietMs)),
    ...kinds.map((kind) => COUNTERS[kind](deps.db, since(kind), now)),
  ]);
  const candidates = kinds.flatMap((kind, i) => (counted[i] ?? []).map((c) => ({ ...c, kind })));
  // the sites involved; for the calls kinds, the call ids
  const siteNames = (sites: string[]) =>
    sites.filter((s) => /^[a-z0-9.-]{1,253}$/.test(s) || /^(call|chk)_[A-Za-z0-9_-]{1,64}$/.test(s));
  let raised = 0;
  for (const c of candidates) {
    const organisationId = Number(c.organisation_id);
    const settings = await repo.findSettings(deps.db, organisationId);
    if (!settings.enabled) continue;
    const current = open.find((a) => a.organisation_id === organisationId && a.kind === c.kind);
    let alert: repo.RaisedAlert | undefined;
    let grownFrom: number | undefined;
    if (current) {
      // Within the quiet hour: everything since the alert's window started counts towards it.
      const [total] = await COUNTERS[c.kind](deps.db, new Date(current.window_start), now, organisationId);
      if (!total || total.count < current.count * 2) continue;
      alert = await repo.growAlert(deps.db, {
        id: current.id,
        now,
        count: total.count,
        sites: siteNames(total.sites),
      });
      grownFrom = current.count;
    } else {
      if (c.count < WINDOWS[c.kind].threshold(settings)) continue;
      alert = await repo.raiseAlert(deps.db, {
        organisationId,
        kind: c.kind,
        now,
        count: c.count,
        windowStart: since(c.kind),
        sites: siteNames(c.sites),
        quietMs: ALERT_LIMITS.quietMs,
      });
    }
    if (!alert) continue;
    if (alert.queued > 0) wakeWorkersAfterCommit(deps);
    raised++;
    await deps.audit.record({
      action: AUDIT_ACTIONS.raiseAlert,
      outcome: "success",
      organisationId,
      target: String(alert.id),
      detail: { kind: alert.kind, count: alert.count, ...(grownFrom === undefined ? {} : { grownFrom }) },
    });
    const url = `${deps.config.publicUrl}${paths.employerFraud}`;
    const mail = { ...alert, windowStart: alert.window_start, windowEnd: alert.window_end };
    await notifyOrganisationAdmins(deps, organisationId, (to) => alertMail(to, mail, url));
  }
  return raised;
}
