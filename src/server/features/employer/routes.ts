import { requireRole } from "@server/plugins/guards";
import type { App } from "@server/types";
import { idParams, listQuery } from "@shared/admin";
import { messageAnswer } from "@shared/auth";
import {
  accessCodeRecord,
  accessCodesAnswer,
  employeesAnswer,
  employeesQueryExtra,
  employerProfile,
  generateAccessCodeBody,
} from "@shared/employer";
import { requireRoleAudited } from "../audit/actions";
import { deactivateEmployee, employees, generateAccessCode, newestAccessCode, profile } from "./service";

/** The employer dashboard's API: reads for superusers and admins, actions for superusers only. */
export default async function employerRoutes(app: App) {
  const dashboard = requireRole("superuser", "admin");

  app.get(
    "/employer/me",
    { preValidation: dashboard, schema: { response: { 200: employerProfile } } },
    async (request) => profile(app, request),
  );

  app.get(
    "/employer/employees",
    {
      preValidation: dashboard,
      schema: { querystring: listQuery.extend(employeesQueryExtra.shape), response: { 200: employeesAnswer } },
    },
    async (request) => employees(app, request, request.query),
  );

  app.get(
    "/employer/access-codes",
    { preValidation: dashboard, schema: { querystring: employeesQueryExtra, response: { 200: accessCodesAnswer } } },
    async (request) => newestAccessCode(app, request, request.query.organisationId),
  );

  app.post(
    "/employer/generate-access-code",
    {
      preValidation: requireRoleAudited(app, "employer.generate-access-code", "superuser"),
      schema: { body: generateAccessCodeBody, response: { 200: accessCodeRecord } },
    },
    async (request) => generateAccessCode(app, request, request.body.maxUsers),
  );

  app.post(
    "/employer/deactivate-employee/:id",
    {
      preValidation: requireRoleAudited(app, "employer.deactivate-employee", "superuser"),
      schema: { params: idParams, response: { 200: messageAnswer } },
    },
    async (request) => deactivateEmployee(app, request, request.params.id),
  );
}
