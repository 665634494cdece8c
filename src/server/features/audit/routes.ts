import { notFound } from "@server/lib/errors";
import { currentUser, requireRole } from "@server/plugins/guards";
import type { App } from "@server/types";
import { auditPage as auditPageSchema, auditQuery, employerAuditQuery } from "@shared/audit";
import { EMPLOYER_MESSAGES } from "@shared/employer";
import { auditCsv, auditPage, filterOf } from "./service";

/** Reading the append-only audit log: the admin sees everything, an employer its own organisation. */
export default async function auditRoutes(app: App) {
  app.get(
    "/admin/audit",
    { preValidation: requireRole("admin"), schema: { querystring: auditQuery, response: { 200: auditPageSchema } } },
    async (request) => {
      const { page, ...filters } = request.query;
      return auditPage(app, filterOf(filters), page);
    },
  );

  app.get(
    "/admin/audit.csv",
    { preValidation: requireRole("admin"), schema: { querystring: auditQuery.omit({ page: true }) } },
    async (request, reply) => {
      const csv = await auditCsv(app, filterOf(request.query));
      const stamp = app.clock.now().toISOString().slice(0, 10);
      return reply
        .type("text/csv; charset=utf-8")
        .header("content-disposition", `attachment; filename="callproof-audit-${stamp}.csv"`)
        .send(csv);
    },
  );

  app.get(
    "/employer/audit",
    {
      preValidation: requireRole("superuser"),
      schema: { querystring: employerAuditQuery, response: { 200: auditPageSchema } },
    },
    async (request) => {
      const user = currentUser(request);
      if (!user.organisationId) throw notFound(EMPLOYER_MESSAGES.noOrganisation);
      return auditPage(app, { organisationId: user.organisationId }, request.query.page);
    },
  );
}
