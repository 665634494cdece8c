import { requireRole, requireRoleAudited } from "@server/plugins/guards";
import type { App } from "@server/types";
import { errorAnswer, messageAnswer } from "@shared/answers";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { employeesQueryExtra } from "@shared/employer";
import { idParams } from "@shared/paging";
import { siteCheckAnswer, siteHostBody, siteHostParams, siteRecord, sitesAnswer } from "@shared/sites";
import { sitesDeps } from "./deps";
import { addSite, adminVerifySite, checkSite, listSites, removeSite } from "./service";

/** Organisation sites: the employer manages its own; an admin reads any and vouches for a host. */
export default async function sitesRoutes(app: App) {
  app.get(
    "/employer/sites",
    {
      preValidation: requireRole("superuser", "admin"),
      schema: {
        operationId: "listSites",
        summary: "The organisation's sites and their proof",
        querystring: employeesQueryExtra,
        response: { 404: errorAnswer, 200: sitesAnswer },
      },
    },
    async (request) => listSites(sitesDeps(app), request.actor, request.query),
  );

  app.post(
    "/employer/sites",
    {
      preValidation: requireRoleAudited(AUDIT_ACTIONS.addSite, "superuser"),
      schema: {
        operationId: "addSite",
        summary: "Add a site to prove",
        body: siteHostBody,
        response: { 404: errorAnswer, 409: errorAnswer, 201: siteRecord },
      },
    },
    async (request, reply) => reply.code(201).send(await addSite(sitesDeps(app), request.actor, request.body)),
  );

  app.post(
    "/employer/sites/check",
    {
      preValidation: requireRoleAudited(AUDIT_ACTIONS.checkSite, "superuser"),
      schema: {
        operationId: "checkSite",
        summary: "Check a site's proof now (DNS, then the well-known file)",
        body: siteHostBody,
        response: { 404: errorAnswer, 200: siteCheckAnswer },
      },
    },
    async (request) => checkSite(sitesDeps(app), request.actor, request.body),
  );

  app.delete(
    "/employer/sites/:host",
    {
      preValidation: requireRoleAudited(AUDIT_ACTIONS.removeSite, "superuser"),
      schema: {
        operationId: "removeSite",
        summary: "Remove a site",
        params: siteHostParams,
        response: { 409: errorAnswer, 200: messageAnswer },
      },
    },
    async (request) => removeSite(sitesDeps(app), request.actor, request.params),
  );

  app.post(
    "/admin/organisations/:id/sites",
    {
      preValidation: requireRoleAudited(AUDIT_ACTIONS.adminVerifySite, "admin"),
      schema: {
        operationId: "adminVerifySite",
        summary: "Verify a site on an admin's word",
        params: idParams,
        body: siteHostBody,
        response: { 409: errorAnswer, 200: siteCheckAnswer },
      },
    },
    async (request) =>
      adminVerifySite(sitesDeps(app), request.actor, { organisationId: request.params.id, host: request.body.host }),
  );
}
