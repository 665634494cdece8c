import { PagedAuditTable } from "@web/components/ui/audit-table";
import { useOrganisationAudit } from "../audit/api";

/** Audit: the organisation's audit events, newest first, paged. */
export function AuditSection() {
  const audit = useOrganisationAudit();
  return (
    <section className="employer-section" aria-labelledby="events-title">
      <h2 id="events-title">Audit events</h2>
      <PagedAuditTable
        log={audit}
        label="Audit events"
        caption={`Your organisation's audit events, newest first${audit.list ? ` (${audit.list.total})` : ""}`}
        emptyText={audit.loading ? "Loading…" : "No events yet."}
      />
    </section>
  );
}
