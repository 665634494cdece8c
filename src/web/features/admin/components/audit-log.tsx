import { PagedAuditTable } from "@web/components/ui/audit-table";
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
    log.search({ ...draft });
  }

  function clear() {
    setDraft(NO_AUDIT_FILTERS);
    log.search(NO_AUDIT_FILTERS);
  }

  const field = (key: keyof AuditFilters) => ({
    value: draft[key],
    onChange: (event: { target: { value: string } }) => setDraft((d) => ({ ...d, [key]: event.target.value })),
  });

  const filters = log.query.filters;
  const filtered = Object.values(filters).some((v) => v.trim() !== "");
  const page = log.list;

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
          <a className="button button--secondary" href={adminApi.auditCsvUrl(filters)} download>
            Export CSV
          </a>
        </div>
      </form>
      <PagedAuditTable
        log={log}
        label="Audit log"
        caption={`Audit events, newest first${page ? ` (${page.total}${filtered ? " matching the filters" : ""})` : ""}`}
        showOrganisation
        emptyText={log.loading ? "Loading…" : filtered ? "No events match the filters." : "No events yet."}
      />
    </section>
  );
}
