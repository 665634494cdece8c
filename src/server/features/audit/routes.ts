import { requireRole } from "@server/plugins/guards";
import type { App } from "@server/types";
import { textAnswer } from "@shared/answers";
import { auditPage, auditQuery, employerAuditQuery } from "@shared/audit";
import * as audit from "./service";

/** Reading the append-only audit log: the admin sees everything, an employer its own organisation. */
export default async function auditRoutes(app: App) {
  app.get(
    "/admin/audit",
    {
      preValidation: requireRole("admin"),
      schema: {
        operationId: "listAuditEvents",
        summary: "The audit log, a page at a time (admins)",
        querystring: auditQuery,
        response: { 200: auditPage },
      },
    },
    async (request) => audit.auditPage(app.deps, request.query),
  );

  app.get(
    "/admin/audit.csv",
    {
      preValidation: requireRole("admin"),
      schema: {
        operationId: "exportAuditCsv",
        summary: "The audit log as CSV (admins)",
        querystring: auditQuery.omit({ page: true }),
        response: { 200: textAnswer("text/csv", "The events, oldest first, as an attachment", "id,at,action\n") },
      },
    },
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
      schema: {
        operationId: "listOrganisationAuditEvents",
        summary: "The organisation's audit log, a page at a time",
        querystring: employerAuditQuery,
        response: { 200: auditPage },
      },
    },
    async (request) => audit.organisationAuditPage(app.deps, request.actor, request.query),
  );
}
