import type { Actor, Deps } from "@server/context";
import { organisationFor } from "@server/features/organisations";
import { toCsvDocument } from "@server/lib/csv";
import { loadPage } from "@server/lib/paging";
import { AUDIT_CSV_MAX_ROWS, AUDIT_PAGE_SIZE, type AuditEntry, type AuditQuery } from "@shared/audit";
import { type AuditFilter, countEvents, listEvents } from "./repository";

const DAY_MS = 86_400_000;
const BARE_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The query's filters as database conditions; a bare `to` date covers that whole day (UTC). */
export function filterOf(query: Omit<AuditQuery, "page">): AuditFilter {
  const parse = (v: string) => new Date(BARE_DATE.test(v) ? `${v}T00:00:00Z` : v);
  return {
    actorEmail: query.actor || undefined,
    action: query.action || undefined,
    organisationId: query.organisationId,
    from: query.from ? parse(query.from) : undefined,
    until: query.to
      ? BARE_DATE.test(query.to)
        ? new Date(parse(query.to).getTime() + DAY_MS)
        : new Date(parse(query.to).getTime() + 1)
      : undefined,
  };
}

/** One page (50) of audit events, newest first, filtered as the admin asks. */
export function auditPage(deps: Deps, query: AuditQuery) {
  const { page, ...filters } = query;
  return eventsPage(deps, filterOf(filters), page);
}

/**
 * One page of the events of the employer's own organisation. Customers' addresses (events without a
 * signed-in actor: look-ups, reports) are not the organisation's to see; admins keep them for abuse
 * handling.
 */
export async function organisationAuditPage(deps: Deps, actor: Actor, input: { page?: number }) {
  const organisationId = organisationFor(actor);
  const page = await eventsPage(deps, { organisationId }, input.page);
  return { ...page, items: page.items.map((e) => (e.actorEmail === null ? { ...e, ip: null } : e)) };
}

function eventsPage(deps: Deps, filter: AuditFilter, page = 1) {
  return loadPage(
    page,
    AUDIT_PAGE_SIZE,
    ({ limit, offset }) => listEvents(deps.db, filter, limit, offset),
    () => countEvents(deps.db, filter),
  );
}

const CSV_COLUMNS = [
  "id",
  "at",
  "actorEmail",
  "action",
  "target",
  "organisationId",
  "ip",
  "outcome",
  "detail",
] as const;

export function toCsv(rows: AuditEntry[]): string {
  return toCsvDocument(
    CSV_COLUMNS,
    rows.map((row) => CSV_COLUMNS.map((c) => row[c])),
  );
}

/** The filtered events as CSV, newest first, at most 50,000 rows, with the file name to save it under. */
export async function auditCsv(deps: Deps, query: Omit<AuditQuery, "page">) {
  const csv = toCsv(await listEvents(deps.db, filterOf(query), AUDIT_CSV_MAX_ROWS));
  const stamp = deps.clock.now().toISOString().slice(0, 10);
  return { csv, fileName: `callproof-audit-${stamp}.csv` };
}
