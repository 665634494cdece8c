/** What other features use of reported calls: the integration API's cursor over them. */
export { positionReports, reportsFeed } from "./feed";
