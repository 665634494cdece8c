import { requireRole, requireRoleAudited } from "@server/plugins/guards";
import type { App } from "@server/types";
import { errorAnswer, messageAnswer } from "@shared/answers";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import {
  accessCodeRecord,
  accessCodesAnswer,
  employeesAnswer,
  employeesQueryExtra,
  employerProfile,
  generateAccessCodeBody,
} from "@shared/employer";
import { idParams, listQuery } from "@shared/paging";
import * as employer from "./service";

/** The employer dashboard's API: reads for superusers and admins, actions for superusers only. */
export default async function employerRoutes(app: App) {
  const dashboard = requireRole("superuser", "admin");

  app.get(
    "/employer/me",
    {
      preValidation: dashboard,
      schema: {
        operationId: "getEmployerProfile",
        summary: "The employer's organisation profile",
        response: { 404: errorAnswer, 200: employerProfile },
      },
    },
    async (request) => employer.profile(app.deps, request.actor),
  );

  app.get(
    "/employer/employees",
    {
      preValidation: dashboard,
      schema: {
        operationId: "listEmployees",
        summary: "The organisation's active employees and their code counts",
        querystring: listQuery.extend(employeesQueryExtra.shape),
        response: { 404: errorAnswer, 200: employeesAnswer },
      },
    },
    async (request) => employer.employees(app.deps, request.actor, request.query),
  );

  app.get(
    "/employer/access-codes",
    {
      preValidation: dashboard,
      schema: {
        operationId: "getAccessCode",
        summary: "The newest employee access code",
        querystring: employeesQueryExtra,
        response: { 404: errorAnswer, 200: accessCodesAnswer },
      },
    },
    async (request) => employer.newestAccessCode(app.deps, request.actor, request.query),
  );

  app.post(
    "/employer/generate-access-code",
    {
      preValidation: requireRoleAudited(AUDIT_ACTIONS.generateAccessCode, "superuser"),
      schema: {
        operationId: "generateAccessCode",
        summary: "Create an employee access code",
        body: generateAccessCodeBody,
        response: { 404: errorAnswer, 409: errorAnswer, 200: accessCodeRecord },
      },
    },
    async (request) => employer.generateAccessCode(app.deps, request.actor, request.body),
  );

  app.post(
    "/employer/deactivate-employee/:id",
    {
      preValidation: requireRoleAudited(AUDIT_ACTIONS.deactivateEmployee, "superuser"),
      schema: {
        operationId: "deactivateEmployee",
        summary: "Deactivate an employee",
        params: idParams,
        response: { 200: messageAnswer },
      },
    },
    async (request) => employer.deactivateEmployee(app.deps, request.actor, request.params),
  );
}
