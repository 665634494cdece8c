import { inviteEmployer } from "@server/features/onboarding";
import { requireRole, requireRoleAudited } from "@server/plugins/guards";
import type { App } from "@server/types";
import {
  accountList,
  activeEmployersAnswer,
  deactivateByDomainAnswer,
  deactivateByDomainBody,
  deactivatedOrganisationList,
  deactivationAnswer,
  generateEmployerCodeAnswer,
  generateEmployerCodeBody,
  statsAnswer,
} from "@shared/admin";
import { errorAnswer, messageAnswer } from "@shared/answers";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { idParams, listQuery } from "@shared/paging";
import { eraseAccount } from "./erasure";
import * as admin from "./service";

/** The admin dashboard's API: every route is admin-only (401 signed out, 403 other roles). */
export default async function adminRoutes(app: App) {
  const adminOnly = requireRole("admin");
  const idAction = { params: idParams, response: { 200: messageAnswer } };

  app.get(
    "/admin/stats",
    {
      preValidation: adminOnly,
      schema: {
        operationId: "getAdminStats",
        summary: "Codes generated and verified, in all",
        response: { 200: statsAnswer },
      },
    },
    async () => admin.stats(app.deps),
  );

  app.get(
    "/admin/pending-accounts",
    {
      preValidation: adminOnly,
      schema: {
        operationId: "listPendingAccounts",
        summary: "Employer accounts awaiting activation",
        response: { 200: accountList },
      },
    },
    async () => admin.pendingAccounts(app.deps),
  );

  app.get(
    "/admin/active-employers",
    {
      preValidation: adminOnly,
      schema: {
        operationId: "listActiveEmployers",
        summary: "Active employer accounts",
        querystring: listQuery,
        response: { 200: activeEmployersAnswer },
      },
    },
    async (request) => admin.activeEmployers(app.deps, request.query),
  );

  app.post(
    "/admin/generate-employer-access-code",
    {
      preValidation: requireRoleAudited(AUDIT_ACTIONS.inviteEmployer, "admin"),
      schema: {
        operationId: "inviteEmployer",
        summary: "Invite an employer (e-mails an invitation code)",
        body: generateEmployerCodeBody,
        response: { 200: generateEmployerCodeAnswer },
      },
    },
    async (request) => inviteEmployer(app.deps, request.actor, request.body),
  );

  app.post(
    "/admin/activate-account/:id",
    {
      preValidation: requireRoleAudited(AUDIT_ACTIONS.activateAccount, "admin"),
      schema: {
        ...idAction,
        operationId: "activateAccount",
        summary: "Activate a pending employer account",
        response: { ...idAction.response, 409: errorAnswer },
      },
    },
    async (request) => admin.activateAccount(app.deps, request.actor, request.params),
  );

  app.post(
    "/admin/deactivate-employer/:id",
    {
      preValidation: requireRoleAudited(AUDIT_ACTIONS.deactivateEmployer, "admin"),
      schema: {
        operationId: "deactivateEmployer",
        summary: "Deactivate an employer and their organisation",
        params: idParams,
        response: { 200: deactivationAnswer },
      },
    },
    async (request) => admin.deactivateEmployer(app.deps, request.actor, request.params),
  );

  app.post(
    "/admin/deactivate-by-domain",
    {
      preValidation: requireRoleAudited(AUDIT_ACTIONS.deactivateByDomain, "admin"),
      schema: {
        operationId: "deactivateByDomain",
        summary: "Deactivate the organisation of an e-mail domain",
        body: deactivateByDomainBody,
        response: { 404: errorAnswer, 200: deactivateByDomainAnswer },
      },
    },
    async (request) => admin.deactivateByDomain(app.deps, request.actor, request.body),
  );

  app.get(
    "/admin/deactivated-organisations",
    {
      preValidation: adminOnly,
      schema: {
        operationId: "listDeactivatedOrganisations",
        summary: "Deactivated organisations, most recently deactivated first",
        response: { 200: deactivatedOrganisationList },
      },
    },
    async () => admin.deactivatedOrganisations(app.deps),
  );

  app.post(
    "/admin/organisations/:id/reactivate",
    {
      preValidation: requireRoleAudited(AUDIT_ACTIONS.reactivateOrganisation, "admin"),
      schema: {
        operationId: "reactivateOrganisation",
        summary: "Reactivate a deactivated organisation (its accounts stay as they are)",
        ...idAction,
      },
    },
    async (request) => admin.reactivateOrganisation(app.deps, request.actor, request.params),
  );

  app.post(
    "/admin/accounts/:id/erase",
    {
      preValidation: requireRoleAudited(AUDIT_ACTIONS.eraseAccount, "admin"),
      schema: { ...idAction, operationId: "eraseAccount", summary: "Erase an account's personal data" },
    },
    async (request) => eraseAccount(app.deps, request.actor, request.params),
  );
}
