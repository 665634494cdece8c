import { anonymousLimit } from "@server/lib/anonymous-access";
import type { App } from "@server/types";
import { errorAnswer } from "@shared/answers";
import {
  registerEmployeeBody,
  registerEmployerBody,
  registeredAnswer,
  validateAccessCodeAnswer,
  validateAccessCodeBody,
  validateEmployerCodeAnswer,
  validateEmployerCodeBody,
} from "@shared/onboarding";
import * as onboarding from "./service";

/** Access-code guesses, per client address before any write; shared by the four routes. */
const guesses = { config: { anonymous: anonymousLimit(onboarding.CODE_GUESSES) } };

const errors = { 400: errorAnswer, 404: errorAnswer, 409: errorAnswer, 429: errorAnswer };

/** Sign-up: employer invitation codes and registration, employee access codes and registration. */
export default async function onboardingRoutes(app: App) {
  app.post(
    "/employer/auth/validate-employer-access-code",
    {
      ...guesses,
      schema: {
        operationId: "validateEmployerAccessCode",
        summary: "Check an employer invitation code",
        body: validateEmployerCodeBody,
        response: { 200: validateEmployerCodeAnswer, ...errors },
      },
    },
    async (request) => onboarding.validateEmployerCode(app.deps, request.actor, request.body),
  );

  app.post(
    "/employer/auth/register-employer",
    {
      ...guesses,
      schema: {
        operationId: "registerEmployer",
        summary: "Sign up an employer with an invitation code",
        body: registerEmployerBody,
        response: { 201: registeredAnswer, ...errors },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await onboarding.registerEmployer(app.deps, request.actor, request.body)),
  );

  app.post(
    "/auth/validate-access-code",
    {
      ...guesses,
      schema: {
        operationId: "validateAccessCode",
        summary: "Check an employee access code",
        body: validateAccessCodeBody,
        response: { 200: validateAccessCodeAnswer, ...errors },
      },
    },
    async (request) => onboarding.validateEmployeeCode(app.deps, request.actor, request.body),
  );

  app.post(
    "/auth/register-employee",
    {
      ...guesses,
      schema: {
        operationId: "registerEmployee",
        summary: "Sign up an employee with an access code",
        body: registerEmployeeBody,
        response: { 201: registeredAnswer, ...errors },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await onboarding.registerEmployee(app.deps, request.actor, request.body)),
  );
}
