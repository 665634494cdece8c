import { type Actor, auditActor, type Deps } from "@server/context";
import { auditDetail } from "@server/features/audit";
import { findOrganisation, organisationActive, organisationFor } from "@server/features/organisations";
import { originHost, siteScope } from "@server/features/sites";
import { notifyOrganisationAdmins } from "@server/features/users";
import { wakeWorkersAfterCommit } from "@server/features/webhooks";
import { toCsvDocument } from "@server/lib/csv";
import { ipNetwork48 } from "@server/lib/ip";
import { loadPage, pageEnvelope } from "@server/lib/paging";
import { reportedCallsMail } from "@server/mail/templates";
import { ALERT_LIMITS } from "@shared/alerts";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { widgetTexts } from "@shared/i18n";
import type { Language } from "@shared/languages";
import { LIST_PAGE_SIZE, type ListQuery, type Page } from "@shared/paging";
import { paths } from "@shared/paths";
import { type CallReport, REPORTS_PER_HOUR, REPORTS_TEXT, type ReportBody } from "@shared/reports";
import { reportsErrors } from "./errors";
import * as repo from "./repository";

/** A superuser's organisation gets at most one summary mail per this long. */
export const REPORT_MAIL_GAP_MS = 10 * 60_000;
const HOUR_MS = 3_600_000;
/**
 * Reports one IPv6 /48 may send per hour, whatever its /64s (each has REPORTS_PER_HOUR): a provider's
 * allocation holds 65,536 /64s, so the /64 limit alone lets one network flood.
 */
export const REPORTS_PER_NETWORK_HOUR = 20;
/**
 * Reports one destination (an organisation, or the admins) keeps from any rolling 24 hours. Once full it
 * sheds the heaviest network first (repository `storeReport`): it never closes for everyone, and what it
 * stores stays bounded.
 */
export const REPORTS_PER_DESTINATION_DAY = 1_000;
const DAY_MS = 24 * HOUR_MS;
/** Reports are kept this long. */
export const REPORTS_KEPT_MS = 365 * DAY_MS;

/**
 * A customer reports a call after a failed look-up. It reaches the organisation owning the verified site
 * of the request's Origin; from the product's own site, no Origin or an unknown one, the admins. The
 * answer is the same either way. At most REPORTS_PER_HOUR per client IP (IPv6 /64) and
 * REPORTS_PER_NETWORK_HOUR per IPv6 /48, counted before any work; then the destination's budget
 * (REPORTS_PER_DESTINATION_DAY, fair per network). A report whose Origin is neither the product's own
 * nor an https site an organisation proved (a missing or forged one included) is marked "unverified origin".
 */
export async function createReport(
  deps: Deps,
  actor: Actor,
  input: {
    body: ReportBody;
    origin: string | undefined;
    language?: Language;
    /** sent by the call-status component: routed to its token's organisation (the token was bound to `origin`) */
    callStatus?: { organisationId: number };
  },
): Promise<{ message: string; organisationId: number | null }> {
  const now = deps.clock.now();
  // The answers in the widget's language (English by default).
  const texts = widgetTexts(input.language);
  const limit = await deps.limits.hit(`reports:ip:${actor.clientKey}`, REPORTS_PER_HOUR, HOUR_MS, now);
  if (!limit.allowed) throw reportsErrors.tooManyReports(limit.retryAfterSeconds, texts.reportsTooMany);
  const network = ipNetwork48(actor.ip);
  if (network !== null) {
    const wide = await deps.limits.hit(`reports:net48:${network}`, REPORTS_PER_NETWORK_HOUR, HOUR_MS, now);
    if (!wide.allowed) throw reportsErrors.tooManyReports(wide.retryAfterSeconds, texts.reportsTooMany);
  }
  const scope = siteScope(input.origin, deps.config.publicOrigin);
  const owner = input.callStatus
    ? input.callStatus.organisationId
    : scope === "any"
      ? null
      : await repo.organisationOfSite(deps.db, scope);
  const unverifiedOrigin =
    !input.callStatus &&
    !(
      (input.origin !== undefined && input.origin === deps.config.publicOrigin) ||
      (owner !== null && input.origin?.startsWith("https://"))
    );
  // A deactivated organisation has nobody to read its reports: they go to the admins.
  const organisationId = owner !== null && (await organisationActive(deps.db, owner)) ? owner : null;
  const site = originHost(input.origin);
  const stored = await repo.storeReport(
    deps.db,
    {
      now,
      organisationId,
      site,
      source: network ?? ipv4Network24(actor.clientKey),
      unverifiedOrigin,
      via: input.callStatus ? "call-status" : "widget",
      ...input.body,
    },
    { budget: REPORTS_PER_DESTINATION_DAY, since: new Date(now.getTime() - DAY_MS) },
  );
  if (stored === null) throw reportsErrors.tooManyReports(Math.ceil(HOUR_MS / 1000), texts.reportsTooMany);
  if (stored.queued > 0) wakeWorkersAfterCommit(deps);
  await deps.audit.record({
    ...auditActor(actor),
    action: AUDIT_ACTIONS.reportCall,
    outcome: "success",
    organisationId,
    target: String(stored.id),
    detail: auditDetail(AUDIT_ACTIONS.reportCall, {
      site,
      routed: organisationId === null ? "admins" : "organisation",
      ...(input.callStatus ? { via: "call-status" } : {}),
      ...(unverifiedOrigin ? { unverifiedOrigin } : {}),
      ...(stored.shed !== null ? { shed: stored.shed } : {}),
    }),
  });
  return { message: texts.sent, organisationId };
}

/**
 * The sending network a report is counted against in its destination's budget: the IPv4 /24 (what the
 * retention job would cut the address to: no full address is stored with a report).
 */
function ipv4Network24(clientKey: string): string {
  return `${clientKey.split(".").slice(0, 3).join(".")}.0/24`;
}

function toReport(r: repo.ReportRow): CallReport {
  return {
    id: r.id,
    at: r.at.toISOString(),
    site: r.site,
    unverifiedOrigin: r.unverified_origin,
    callerNumber: r.caller_number,
    claimedName: r.claimed_name,
    note: r.note,
  };
}

function pageOfReports(deps: Deps, organisationId: number | null, query: ListQuery): Promise<Page<CallReport>> {
  const q = query.q || undefined;
  return loadPage(
    query.page ?? 1,
    LIST_PAGE_SIZE,
    async (slice) => (await repo.listReports(deps.db, organisationId, { q, ...slice })).map(toReport),
    () => repo.countReports(deps.db, organisationId, q),
  );
}

/** The employer dashboard's reported calls, newest first; `q` searches the number. */
export async function organisationReports(
  deps: Deps,
  actor: Actor,
  query: ListQuery & { organisationId?: number },
): Promise<Page<CallReport>> {
  const organisationId = organisationFor(actor, { requested: query.organisationId, orNone: true });
  if (organisationId === null) return pageEnvelope([], 0, query.page ?? 1, LIST_PAGE_SIZE);
  return pageOfReports(deps, organisationId, query);
}

/** The admin dashboard's reports that reached no organisation. */
export function unroutedReports(deps: Deps, query: ListQuery): Promise<Page<CallReport>> {
  return pageOfReports(deps, null, query);
}

/** At most this many rows in one CSV export. */
export const EXPORT_MAX_ROWS = 10_000;

/**
 * The organisation's reports as CSV, safe to open in a spreadsheet (lib/csv: quoted cells, no formulas).
 */
export async function organisationReportsCsv(
  deps: Deps,
  actor: Actor,
  query: { organisationId?: number },
): Promise<string> {
  const organisationId = organisationFor(actor, { requested: query.organisationId, orNone: true });
  const rows =
    organisationId === null
      ? []
      : await repo.listReports(deps.db, organisationId, { limit: EXPORT_MAX_ROWS, offset: 0 });
  const c = REPORTS_TEXT.columns;
  return toCsvDocument(
    [c.at, c.site, c.origin, c.callerNumber, c.claimedName, c.note],
    rows.map((r) => [
      r.at.toISOString(),
      r.site,
      r.unverified_origin ? REPORTS_TEXT.unverifiedOrigin : REPORTS_TEXT.verifiedOrigin,
      r.caller_number,
      r.claimed_name,
      r.note,
    ]),
  );
}

/**
 * Mails the superusers of an organisation a summary of its new reports, unless it had one less than
 * 10 minutes ago (then a later run sends it). Safe to run in every process: one claims the reports.
 */
export async function mailReportSummary(deps: Deps, organisationId: number): Promise<number> {
  const claimed = await repo.claimReportsToMail(deps.db, organisationId, deps.clock.now(), REPORT_MAIL_GAP_MS);
  if (claimed.length === 0) return 0;
  const company = (await findOrganisation(deps.db, organisationId))?.companyName ?? "";
  const firstAt = new Date(Math.min(...claimed.map((r) => r.at.getTime())));
  const url = `${deps.config.publicUrl}${paths.employerFraud}`;
  await notifyOrganisationAdmins(deps, organisationId, (to) =>
    reportedCallsMail(to, company, claimed.length, firstAt, url),
  );
  return claimed.length;
}

/** Sends every summary that is due (the periodic job). */
export async function mailDueReportSummaries(deps: Deps): Promise<void> {
  for (const organisationId of await repo.organisationsWithUnmailedReports(deps.db)) {
    await mailReportSummary(deps, organisationId);
  }
}

/** The employer dashboard's "Most reported numbers": the last 30 days, each number once with its count. */
export async function mostReportedNumbers(deps: Deps, actor: Actor, query: { organisationId?: number }) {
  const organisationId = organisationFor(actor, { requested: query.organisationId, orNone: true });
  if (organisationId === null) return [];
  const since = new Date(deps.clock.now().getTime() - ALERT_LIMITS.topNumbersDays * 24 * HOUR_MS);
  return repo.mostReportedNumbers(deps.db, organisationId, since, ALERT_LIMITS.topNumbersShown);
}
