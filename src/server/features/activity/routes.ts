import { requireRole } from "@server/plugins/guards";
import type { App } from "@server/types";
import { activityAnswer } from "@shared/activity";
import { errorAnswer } from "@shared/answers";
import { organisationQuery } from "@shared/paging";
import * as activity from "./service";

export default async function activityRoutes(app: App) {
  app.get(
    "/employer/activity",
    {
      preValidation: requireRole("superuser", "admin"),
      schema: {
        operationId: "getActivity",
        summary: "The organisation's last 30 days, per day",
        querystring: organisationQuery,
        response: { 404: errorAnswer, 200: activityAnswer },
      },
    },
    async (request) => activity.activity(app.deps, request.actor, request.query),
  );
}
