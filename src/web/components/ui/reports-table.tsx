import type { Page } from "@shared/paging";
import { type CallReport, REPORTS_TEXT } from "@shared/reports";
import { countCaption, DataTable } from "./data-table";
import { Notice } from "./notice";
import { Pager } from "./pager";
import { SearchField } from "./search-field";
import "./ui.css";

const dateTime = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "short" });

type ReportsTableProps = {
  /** the caption's label: "Reported calls" */
  label: string;
  reports: {
    list: Page<CallReport> | null;
    loading: boolean;
    error: string | null;
    query: { filters: string };
    search(q: string): void;
    showPage(page: number): void;
  };
};

/**
 * Reported calls, newest first, searchable by number and paged. Every field is a stranger's text: React
 * renders it as text (never HTML), and long words wrap instead of widening the table.
 */
export function ReportsTable({ label, reports }: ReportsTableProps) {
  const page = reports.list;
  const query = reports.query.filters;
  const c = REPORTS_TEXT.columns;
  return (
    <>
      <SearchField label={REPORTS_TEXT.searchLabel} onSearch={reports.search} />
      {reports.error && <Notice tone="error">{reports.error}</Notice>}
      <DataTable
        caption={countCaption(label, page?.total ?? 0, query)}
        busy={reports.loading}
        variant="data-table--reports"
        head={
          <>
            <th scope="col">{c.at}</th>
            <th scope="col">{c.callerNumber}</th>
            <th scope="col">{c.claimedName}</th>
            <th scope="col">{c.note}</th>
            <th scope="col">{c.site}</th>
          </>
        }
        columns={5}
        items={page?.items ?? []}
        empty={reports.loading ? "Loading…" : query ? `No reported calls match "${query}".` : REPORTS_TEXT.none}
        row={(r) => (
          <tr key={r.id}>
            <td className="data-table__nowrap">
              <time dateTime={r.at}>{dateTime.format(new Date(r.at))}</time>
            </td>
            <td className="data-table__text">{r.callerNumber ?? "—"}</td>
            <td className="data-table__text">{r.claimedName ?? "—"}</td>
            <td className="data-table__text">{r.note ?? "—"}</td>
            <td className="data-table__text">
              {r.site ?? "—"}
              {r.unverifiedOrigin && (
                <>
                  {" "}
                  <span className="outcome outcome--other" title={REPORTS_TEXT.unverifiedOriginHint}>
                    {REPORTS_TEXT.unverifiedOrigin}
                  </span>
                </>
              )}
            </td>
          </tr>
        )}
      />
      <Pager
        label={label}
        page={page?.page ?? 1}
        pages={page?.pages ?? 1}
        onPage={reports.showPage}
        busy={reports.loading}
      />
    </>
  );
}
