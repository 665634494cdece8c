import type { RegisterEmployeeBody, RegisterEmployerBody } from "@shared/onboarding";
import { send } from "@web/lib/api";

/** The sign-up calls. */
export const onboardingApi = {
  validateEmployerCode: (code: string) => send("validateEmployerAccessCode", { body: { code } }),
  registerEmployer: (body: RegisterEmployerBody) => send("registerEmployer", { body }),
  validateEmployeeCode: (code: string) => send("validateAccessCode", { body: { code } }),
  registerEmployee: (body: RegisterEmployeeBody) => send("registerEmployee", { body }),
};
