import { queryOf, send } from "@web/lib/api";
import { usePagedList } from "@web/lib/paged-list";

/** The audit feature's call on the employer dashboard: the organisation's events, newest first, a page at a time. */
export const auditApi = {
  page: (_filters: null, page: number) => send("listOrganisationAuditEvents", { params: { query: queryOf({ page }) } }),
};

/** The organisation's audit events, paged. */
export function useOrganisationAudit() {
  return usePagedList(auditApi.page, { what: "audit events", filters: null, autoLoad: { refreshKey: 0 } });
}
