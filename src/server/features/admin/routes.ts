import { requireRole } from "@server/plugins/guards";
import type { App } from "@server/types";
import {
  accountList,
  activeEmployersAnswer,
  deactivateByDomainAnswer,
  deactivateByDomainBody,
  deactivationAnswer,
  generateEmployerCodeAnswer,
  generateEmployerCodeBody,
  idParams,
  listQuery,
  statsAnswer,
} from "@shared/admin";
import { messageAnswer } from "@shared/auth";
import { requireRoleAudited } from "../audit/actions";
import { inviteEmployer } from "../onboarding/service";
import {
  activateAccount,
  activeEmployers,
  deactivateByDomain,
  deactivateEmployer,
  pendingAccounts,
  stats,
} from "./service";

/** The admin dashboard's API: every route is admin-only (401 signed out, 403 other roles). */
export default async function adminRoutes(app: App) {
  const adminOnly = requireRole("admin");
  const audited = (action: string) => requireRoleAudited(app, action, "admin");

  app.get("/admin/stats", { preValidation: adminOnly, schema: { response: { 200: statsAnswer } } }, async () =>
    stats(app),
  );

  app.get(
    "/admin/pending-accounts",
    { preValidation: adminOnly, schema: { response: { 200: accountList } } },
    async () => pendingAccounts(app),
  );

  app.get(
    "/admin/active-employers",
    { preValidation: adminOnly, schema: { querystring: listQuery, response: { 200: activeEmployersAnswer } } },
    async (request) => activeEmployers(app, request.query),
  );

  app.post(
    "/admin/generate-employer-access-code",
    {
      preValidation: audited("admin.invite-employer"),
      schema: { body: generateEmployerCodeBody, response: { 200: generateEmployerCodeAnswer } },
    },
    async (request) => inviteEmployer(app, request, request.body.email),
  );

  app.post(
    "/admin/activate-account/:id",
    {
      preValidation: audited("admin.activate-account"),
      schema: { params: idParams, response: { 200: messageAnswer } },
    },
    async (request) => activateAccount(app, request, request.params.id),
  );

  app.post(
    "/admin/deactivate-employer/:id",
    {
      preValidation: audited("admin.deactivate-employer"),
      schema: { params: idParams, response: { 200: deactivationAnswer } },
    },
    async (request) => deactivateEmployer(app, request, request.params.id),
  );

  app.post(
    "/admin/deactivate-by-domain",
    {
      preValidation: audited("admin.deactivate-by-domain"),
      schema: { body: deactivateByDomainBody, response: { 200: deactivateByDomainAnswer } },
    },
    async (request) => deactivateByDomain(app, request, request.body.domain),
  );
}
