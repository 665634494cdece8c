import type { App } from "@server/types";
import { messageAnswer } from "@shared/auth";
import {
  registerEmployeeBody,
  registerEmployerBody,
  registeredAnswer,
  validateAccessCodeAnswer,
  validateAccessCodeBody,
  validateEmployerCodeAnswer,
  validateEmployerCodeBody,
} from "@shared/onboarding";
import { registerEmployee, registerEmployer, validateEmployeeCode, validateEmployerCode } from "./service";

const errors = { 400: messageAnswer, 404: messageAnswer, 409: messageAnswer, 429: messageAnswer };

/** Sign-up: employer invitation codes and registration, employee access codes and registration. */
export default async function onboardingRoutes(app: App) {
  app.post(
    "/employer/auth/validate-employer-access-code",
    { schema: { body: validateEmployerCodeBody, response: { 200: validateEmployerCodeAnswer, ...errors } } },
    async (request) => validateEmployerCode(app, request, request.body.code),
  );

  app.post(
    "/employer/auth/register-employer",
    { schema: { body: registerEmployerBody, response: { 201: registeredAnswer, ...errors } } },
    async (request, reply) => reply.code(201).send(await registerEmployer(app, request, request.body)),
  );

  app.post(
    "/auth/validate-access-code",
    { schema: { body: validateAccessCodeBody, response: { 200: validateAccessCodeAnswer, ...errors } } },
    async (request) => validateEmployeeCode(app, request, request.body.code),
  );

  app.post(
    "/auth/register-employee",
    { schema: { body: registerEmployeeBody, response: { 201: registeredAnswer, ...errors } } },
    async (request, reply) => reply.code(201).send(await registerEmployee(app, request, request.body)),
  );
}
