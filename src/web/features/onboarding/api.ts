import type { RegisterEmployeeBody, RegisterEmployerBody } from "@shared/onboarding";
import { call, client } from "@web/lib/api";

/** The sign-up calls. */
export const onboardingApi = {
  validateEmployerCode: (code: string) =>
    call(client.POST("/api/employer/auth/validate-employer-access-code", { body: { code } })),
  registerEmployer: (body: RegisterEmployerBody) => call(client.POST("/api/employer/auth/register-employer", { body })),
  validateEmployeeCode: (code: string) => call(client.POST("/api/auth/validate-access-code", { body: { code } })),
  registerEmployee: (body: RegisterEmployeeBody) => call(client.POST("/api/auth/register-employee", { body })),
};
