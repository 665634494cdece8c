import { requireRole } from "@server/plugins/guards";
import type { App } from "@server/types";
import { auditPage, auditQuery, employerAuditQuery } from "@shared/audit";
import * as audit from "./service";

/** Reading the append-only audit log: the admin sees everything, an employer its own organisation. */
export default async function auditRoutes(app: App) {
  app.get(
    "/admin/audit",
    { preValidation: requireRole("admin"), schema: { querystring: auditQuery, response: { 200: auditPage } } },
    async (request) => audit.auditPage(app.deps, request.query),
  );

  app.get(
    "/admin/audit.csv",
    { preValidation: requireRole("admin"), schema: { querystring: auditQuery.omit({ page: true }) } },
    async (request, reply) => {
      const { csv, fileName } = await audit.auditCsv(app.deps, request.query);
      return reply
        .type("text/csv; charset=utf-8")
        .header("content-disposition", `attachment; filename="${fileName}"`)
        .send(csv);
    },
  );

  app.get(
    "/employer/audit",
    {
      preValidation: requireRole("superuser"),
      schema: { querystring: employerAuditQuery, response: { 200: auditPage } },
    },
    async (request) => audit.organisationAuditPage(app.deps, request.actor, request.query),
  );
}
