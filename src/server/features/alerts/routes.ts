import { requireRole } from "@server/plugins/guards";
import type { App } from "@server/types";
import { alertSettingsBody, alertsAnswer } from "@shared/alerts";
import { errorAnswer } from "@shared/answers";
import { organisationQuery } from "@shared/paging";
import * as alerts from "./service";

/** The fraud team's alerts: settings and recent alerts on the employer dashboard. */
export default async function alertsRoutes(app: App) {
  app.get(
    "/employer/alerts",
    {
      preValidation: requireRole("superuser", "admin"),
      schema: {
        operationId: "getAlerts",
        summary: "The alert settings and recent alerts",
        querystring: organisationQuery,
        response: { 404: errorAnswer, 200: alertsAnswer },
      },
    },
    async (request) => alerts.alertsOf(app.deps, request.actor, request.query),
  );

  app.put(
    "/employer/alerts",
    {
      preValidation: requireRole("superuser"),
      schema: {
        operationId: "updateAlerts",
        summary: "Change the alert settings",
        body: alertSettingsBody,
        response: { 200: alertsAnswer },
      },
    },
    async (request) => alerts.saveAlertSettings(app.deps, request.actor, request.body),
  );
}
