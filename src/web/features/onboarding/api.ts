import type {
  RegisterEmployeeBody,
  RegisterEmployerBody,
  registeredAnswer,
  validateAccessCodeAnswer,
  validateEmployerCodeAnswer,
} from "@shared/onboarding";
import { api } from "@web/lib/api";
import type { z } from "zod";

type Registered = z.infer<typeof registeredAnswer>;

/** The sign-up calls. */
export const onboardingApi = {
  validateEmployerCode: (code: string) =>
    api.post<z.infer<typeof validateEmployerCodeAnswer>>("/api/employer/auth/validate-employer-access-code", { code }),
  registerEmployer: (body: RegisterEmployerBody) => api.post<Registered>("/api/employer/auth/register-employer", body),
  validateEmployeeCode: (code: string) =>
    api.post<z.infer<typeof validateAccessCodeAnswer>>("/api/auth/validate-access-code", { code }),
  registerEmployee: (body: RegisterEmployeeBody) => api.post<Registered>("/api/auth/register-employee", body),
};
