/** What other features use of reported calls: the integration API's cursor over them, and reporting a call (the call-status component). */
export { positionReports, reportsFeed } from "./feed";
export { createReport, mailReportSummary } from "./service";
