/** Alerts for the fraud team (its routes and job only: nothing here is for other features). */

import type { Feature } from "@server/features/feature";
import { ALERT_LIMITS } from "@shared/alerts";
import alertsRoutes from "./routes";
import { raiseDueAlerts } from "./service";

export const alertsFeature: Feature = {
  name: "alerts",
  purpose: "Alerts for the fraud team: bursts of failed checks or reports.",
  tables: ["alert_settings", "alerts", "alert_slots"],
  routes: alertsRoutes,
  jobs: [{ name: "alerts", everyMs: ALERT_LIMITS.checkEveryMs, run: (app) => raiseDueAlerts(app.deps) }],
};
