import { AuditTable } from "@web/components/ui/audit-table";
import { Notice } from "@web/components/ui/notice";
import { Pager } from "@web/components/ui/pager";
import { TextField } from "@web/components/ui/text-field";
import { type FormEvent, useId, useState } from "react";
import { type AuditFilters, adminApi, NO_AUDIT_FILTERS, useAuditLog } from "../api";

/** The platform's audit log: filters, newest first, paged, exportable as CSV with the same filters. */
export function AuditLogSection({ refreshKey }: { refreshKey: number }) {
  const log = useAuditLog(refreshKey);
  const actionHintId = useId();
  const [draft, setDraft] = useState<AuditFilters>(NO_AUDIT_FILTERS);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    log.apply({ ...draft });
  }

  function clear() {
    setDraft(NO_AUDIT_FILTERS);
    log.apply(NO_AUDIT_FILTERS);
  }

  const field = (key: keyof AuditFilters) => ({
    value: draft[key],
    onChange: (event: { target: { value: string } }) => setDraft((d) => ({ ...d, [key]: event.target.value })),
  });

  const filtered = Object.values(log.filters).some((v) => v.trim() !== "");
  const page = log.page;

  return (
    <section className="admin-section" aria-labelledby="audit-title">
      <h2 id="audit-title">Audit log</h2>
      <form className="card audit-filters" onSubmit={submit} aria-label="Audit log filters">
        <TextField label="Actor email" name="actor" type="email" autoComplete="off" {...field("actor")} />
        <TextField
          label="Action"
          name="action"
          autoComplete="off"
          aria-describedby={actionHintId}
          {...field("action")}
        />
        <TextField
          label="Organisation id"
          name="organisationId"
          inputMode="numeric"
          pattern="[0-9]*"
          {...field("organisationId")}
        />
        <TextField label="From (date)" name="from" type="date" {...field("from")} />
        <TextField label="To (date)" name="to" type="date" {...field("to")} />
        <p id={actionHintId} className="field__hint audit-filters__note">
          Action matches a full action name such as admin.activate-account, or the start of one such as admin. Dates are
          whole days (UTC), both ends included.
        </p>
        <div className="audit-filters__actions">
          <button type="submit" className="button button--primary">
            Apply filters
          </button>
          <button type="button" className="button button--secondary" onClick={clear}>
            Clear filters
          </button>
          <a className="button button--secondary" href={adminApi.auditCsvUrl(log.filters)} download>
            Export CSV
          </a>
        </div>
      </form>
      {log.error && <Notice tone="error">{log.error}</Notice>}
      <AuditTable
        caption={`Audit events, newest first${page ? ` (${page.total}${filtered ? " matching the filters" : ""})` : ""}`}
        entries={page?.items ?? []}
        showOrganisation
        emptyText={log.loading ? "Loading…" : filtered ? "No events match the filters." : "No events yet."}
      />
      <Pager
        label="Audit log"
        page={page?.page ?? 1}
        pages={page?.pages ?? 1}
        onPage={log.showPage}
        busy={log.loading}
      />
    </section>
  );
}
