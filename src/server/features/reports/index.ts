/** What other features use of reported calls: the integration API's cursor over them, and reporting a call (the call-status component). */
import type { Feature } from "@server/features/feature";
import { deleteReportsBefore } from "./repository";
import reportsRoutes from "./routes";
import { mailDueReportSummaries, REPORTS_KEPT_MS } from "./service";

export { positionReports, reportsFeed } from "./feed";
export { organisationReportsSql } from "./repository";
export { createReport, mailReportSummary } from "./service";

export const reportsFeature: Feature = {
  name: "reports",
  purpose: "Calls customers report from the widget, routed to the organisation or the admins.",
  tables: ["call_reports"],
  routes: reportsRoutes,
  jobs: [{ name: "reported-calls summaries", everyMs: 60_000, run: (app) => mailDueReportSummaries(app.deps) }],
  sweep: (deps, now) => deleteReportsBefore(deps.db, new Date(now.getTime() - REPORTS_KEPT_MS)),
};
