/** What other features use of the activity view: the integration API's GET /api/v1/activity. */
import type { Feature } from "@server/features/feature";
import activityRoutes from "./routes";

export { organisationActivity } from "./service";

export const activityFeature: Feature = {
  name: "activity",
  purpose: "An organisation's last 30 days, per day.",
  routes: activityRoutes,
};
