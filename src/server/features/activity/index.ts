/** What other features use of the activity view: the integration API's GET /api/v1/activity. */
export { organisationActivity } from "./service";
