import { type Actor, auditActor, type Deps } from "@server/context";
import { findOrganisation, organisationFor } from "@server/features/organisations";
import { employerEmails, hasActiveEmployer } from "@server/features/users";
import { toCsvDocument } from "@server/lib/csv";
import { originHost, siteScope } from "@server/lib/origin";
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
/** Reports one destination (an organisation, or the admins) takes per hour: a flood from many addresses stops there. */
export const REPORTS_PER_DESTINATION_HOUR = 500;
/** Reports are kept this long. */
export const REPORTS_KEPT_MS = 365 * 24 * HOUR_MS;

/**
 * A customer reports a call after a failed look-up. It reaches the organisation owning the verified site
 * of the request's Origin; from the product's own site, no Origin or an unknown one, the admins. The
 * answer is the same either way. At most REPORTS_PER_HOUR per client IP.
 */
export async function createReport(
  deps: Deps,
  actor: Actor,
  input: { body: ReportBody; origin: string | undefined; language?: Language },
): Promise<{ message: string; organisationId: number | null }> {
  const now = deps.clock.now();
  // The answers in the widget's language (English by default).
  const texts = widgetTexts(input.language);
  const limit = await deps.limits.hit(`reports:ip:${actor.clientKey}`, REPORTS_PER_HOUR, HOUR_MS, now);
  if (!limit.allowed) throw reportsErrors.tooManyReports(limit.retryAfterSeconds, texts.reportsTooMany);
  const scope = siteScope(input.origin, deps.config.publicOrigin);
  const owner = scope === "any" ? null : await repo.organisationOfSite(deps.db, scope);
  // An organisation without an active employer (deactivated by an admin) has nobody to read its reports:
  // they go to the admins.
  const organisationId = owner !== null && (await hasActiveEmployer(deps.db, owner)) ? owner : null;
  const destination = `reports:to:${organisationId ?? "admins"}`;
  const flood = await deps.limits.hit(destination, REPORTS_PER_DESTINATION_HOUR, HOUR_MS, now);
  if (!flood.allowed) throw reportsErrors.tooManyReports(flood.retryAfterSeconds, texts.reportsTooMany);
  const site = originHost(input.origin);
  const id = await repo.insertReport(deps.db, { now, organisationId, site, ...input.body });
  await deps.audit.record({
    ...auditActor(actor),
    action: AUDIT_ACTIONS.reportCall,
    outcome: "success",
    organisationId,
    target: String(id),
    detail: { site, routed: organisationId === null ? "admins" : "organisation" },
  });
  return { message: texts.sent, organisationId };
}

function toReport(r: repo.ReportRow): CallReport {
  return {
    id: r.id,
    at: r.at.toISOString(),
    site: r.site,
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
    [c.at, c.site, c.callerNumber, c.claimedName, c.note],
    rows.map((r) => [r.at.toISOString(), r.site, r.caller_number, r.claimed_name, r.note]),
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
  const recipients = await employerEmails(deps.db, organisationId);
  const firstAt = new Date(Math.min(...claimed.map((r) => r.at.getTime())));
  const url = `${deps.config.publicUrl}${paths.employerDashboard}`;
  for (const email of recipients) {
    await deps.mailer
      .send(reportedCallsMail(email, company, claimed.length, firstAt, url))
      .catch((err) => deps.log.warn({ err, organisationId }, "the reported-calls mail could not be sent"));
  }
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
