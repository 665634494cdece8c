import type { AuditEntry } from "@shared/audit";
import type { Page } from "@shared/paging";
import { DataTable } from "./data-table";
import { Notice } from "./notice";
import { Pager } from "./pager";
import "./ui.css";

const dateTime = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "medium" });

function formatAt(at: string): string {
  const date = new Date(at);
  return Number.isNaN(date.getTime()) ? at : dateTime.format(date);
}

/** The detail object as "key: value" pairs, one per line. */
function formatDetail(detail: AuditEntry["detail"] | undefined): string {
  if (!detail) return "";
  return Object.entries(detail)
    .map(([key, value]) => `${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join("\n");
}

type AuditTableProps = {
  caption: string;
  entries: AuditEntry[];
  /** show the organisation column (the platform-wide log) */
  showOrganisation?: boolean;
  emptyText?: string;
};

/** Audit log entries, newest first as given, in a captioned table. */
export function AuditTable({ caption, entries, showOrganisation = false, emptyText = "No events." }: AuditTableProps) {
  return (
    <DataTable
      caption={caption}
      variant="data-table--audit"
      head={
        <>
          <th scope="col">Time</th>
          <th scope="col">Actor</th>
          <th scope="col">Action</th>
          <th scope="col">Target</th>
          {showOrganisation && <th scope="col">Organisation</th>}
          <th scope="col">IP</th>
          <th scope="col">Outcome</th>
          <th scope="col">Detail</th>
        </>
      }
      columns={showOrganisation ? 8 : 7}
      items={entries}
      empty={emptyText}
      row={(entry) => (
        <tr key={entry.id}>
          <td className="data-table__nowrap">
            <time dateTime={entry.at}>{formatAt(entry.at)}</time>
          </td>
          <td>{entry.actorEmail ?? "—"}</td>
          <td>
            <code>{entry.action}</code>
          </td>
          <td>{entry.target ?? ""}</td>
          {showOrganisation && <td>{entry.organisationId ?? ""}</td>}
          <td>{entry.ip ?? ""}</td>
          <td>
            <span className={`outcome outcome--${entry.outcome === "success" ? "ok" : "other"}`}>{entry.outcome}</span>
          </td>
          <td className="data-table__detail">{formatDetail(entry.detail)}</td>
        </tr>
      )}
    />
  );
}

type PagedAuditTableProps = Omit<AuditTableProps, "entries"> & {
  /** the log as the server pages it (usePagedList) */
  log: { list: Page<AuditEntry> | null; loading: boolean; error: string | null; showPage(page: number): void };
  /** what the pager pages: "Audit log" */
  label: string;
};

/** A paged audit log: why it could not be read, its table and its pager. */
export function PagedAuditTable({ log, label, ...table }: PagedAuditTableProps) {
  return (
    <>
      {log.error && <Notice tone="error">{log.error}</Notice>}
      <AuditTable {...table} entries={log.list?.items ?? []} />
      <Pager
        label={label}
        page={log.list?.page ?? 1}
        pages={log.list?.pages ?? 1}
        onPage={log.showPage}
        busy={log.loading}
      />
    </>
  );
}
