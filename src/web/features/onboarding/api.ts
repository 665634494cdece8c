import type { RegisterEmployeeBody, RegisterEmployerBody } from "@shared/onboarding";
import { api } from "@web/lib/api";

export type EmployeeCodeDetails = { companyDomain: string; website: string; message?: string };

/** The sign-up calls (CONTRACT.md, HTTP API). */
export const onboardingApi = {
  validateEmployerCode: (code: string) =>
    api.post<{ email: string }>("/api/employer/auth/validate-employer-access-code", { code }),
  registerEmployer: (body: RegisterEmployerBody) =>
    api.post<{ message?: string }>("/api/employer/auth/register-employer", body),
  validateEmployeeCode: (code: string) => api.post<EmployeeCodeDetails>("/api/auth/validate-access-code", { code }),
  registerEmployee: (body: RegisterEmployeeBody) => api.post<{ message?: string }>("/api/auth/register-employee", body),
};
