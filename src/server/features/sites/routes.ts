import { requireRole } from "@server/plugins/guards";
import type { App } from "@server/types";
import { idParams } from "@shared/admin";
import { messageAnswer } from "@shared/auth";
import { employeesQueryExtra } from "@shared/employer";
import { siteCheckAnswer, siteHostBody, siteHostParams, siteRecord, sitesAnswer } from "@shared/sites";
import type { FastifyRequest } from "fastify";
import { requireRoleAudited } from "../audit/actions";
import { sitesDeps } from "./deps";
import { type Actor, addSite, adminVerifySite, checkSite, listSites, removeSite } from "./service";

const actorOf = (request: FastifyRequest): Actor => ({ user: request.user, ip: request.ip });

/** Organisation sites: the employer manages its own; an admin reads any and vouches for a host. */
export default async function sitesRoutes(app: App) {
  app.get(
    "/employer/sites",
    {
      preValidation: requireRole("superuser", "admin"),
      schema: { querystring: employeesQueryExtra, response: { 200: sitesAnswer } },
    },
    async (request) => listSites(sitesDeps(app), actorOf(request), request.query),
  );

  app.post(
    "/employer/sites",
    {
      preValidation: requireRoleAudited(app, "site.add", "superuser"),
      schema: { body: siteHostBody, response: { 201: siteRecord } },
    },
    async (request, reply) => reply.code(201).send(await addSite(sitesDeps(app), actorOf(request), request.body)),
  );

  app.post(
    "/employer/sites/check",
    {
      preValidation: requireRoleAudited(app, "site.check", "superuser"),
      schema: { body: siteHostBody, response: { 200: siteCheckAnswer } },
    },
    async (request) => checkSite(sitesDeps(app), actorOf(request), request.body),
  );

  app.delete(
    "/employer/sites/:host",
    {
      preValidation: requireRoleAudited(app, "site.remove", "superuser"),
      schema: { params: siteHostParams, response: { 200: messageAnswer } },
    },
    async (request) => removeSite(sitesDeps(app), actorOf(request), request.params),
  );

  app.post(
    "/admin/organisations/:id/sites",
    {
      preValidation: requireRoleAudited(app, "admin.verify-site", "admin"),
      schema: { params: idParams, body: siteHostBody, response: { 200: siteCheckAnswer } },
    },
    async (request) =>
      adminVerifySite(sitesDeps(app), actorOf(request), { organisationId: request.params.id, host: request.body.host }),
  );
}
