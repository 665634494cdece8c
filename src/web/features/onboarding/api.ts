import type { RegisterEmployeeBody, RegisterEmployerBody } from "@shared/onboarding";
import { api } from "@web/lib/api";
import { useEffect, useState } from "react";

export type EmployeeCodeDetails = { companyDomain: string; website: string; message?: string };

/** The sign-up calls (CONTRACT.md, HTTP API). */
export const onboardingApi = {
  validateEmployerCode: (code: string) =>
    api.post<{ email: string }>("/api/employer/auth/validate-employer-access-code", { code }),
  registerEmployer: (body: RegisterEmployerBody) =>
    api.post<{ message?: string }>("/api/employer/auth/register-employer", body),
  validateEmployeeCode: (code: string) => api.post<EmployeeCodeDetails>("/api/auth/validate-access-code", { code }),
  registerEmployee: (body: RegisterEmployeeBody) => api.post<{ message?: string }>("/api/auth/register-employee", body),
  publicConfig: () => api.get<{ supportEmail?: unknown }>("/api/public-config"),
};

/** The support e-mail address for the privacy policy; undefined while loading, null if unavailable. */
export function useSupportEmail(): string | null | undefined {
  const [email, setEmail] = useState<string | null | undefined>(undefined);
  useEffect(() => {
    let live = true;
    onboardingApi.publicConfig().then(
      (answer) => {
        if (live)
          setEmail(typeof answer?.supportEmail === "string" && answer.supportEmail ? answer.supportEmail : null);
      },
      (error) => {
        console.error("Could not load the support email address", error);
        if (live) setEmail(null);
      },
    );
    return () => {
      live = false;
    };
  }, []);
  return email;
}
