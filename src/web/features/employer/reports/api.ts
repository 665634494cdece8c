import { apiHref, queryOf, send } from "@web/lib/api";
import { usePagedList } from "@web/lib/paged-list";
import { useApi } from "@web/lib/use-api";

/** The reports feature's calls on the employer dashboard: reported calls, the most reported numbers, the CSV. */
export const reportsApi = {
  reports: (q: string, page: number) => send("listReports", { params: { query: queryOf({ q, page }) } }),
  topNumbers: (signal?: AbortSignal) => send("listTopReportedNumbers", { signal }),
  csvHref: () => apiHref("exportReportsCsv"),
};

/** The organisation's reported calls, searched by number and paged; read again when `refreshKey` changes. */
export function useReportedCalls(refreshKey: number) {
  return usePagedList(reportsApi.reports, { what: "reported calls", filters: "", autoLoad: { refreshKey } });
}

/** The caller numbers reported most in the last 30 days; read again when `refreshKey` changes. */
export function useTopNumbers(refreshKey: number) {
  return useApi(reportsApi.topNumbers, [refreshKey], { what: "most reported numbers" });
}
