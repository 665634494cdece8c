import type { Role } from "@shared/constants";
import { api } from "@web/lib/api";

/** The sign-in and account-recovery calls (CONTRACT.md, HTTP API). */
export const authApi = {
  login: (email: string, password: string) => api.post<{ message?: string }>("/api/auth/login", { email, password }),
  verify2fa: (email: string, code: string) => api.post<{ role: Role }>("/api/auth/verify-2fa", { email, code }),
  forgotPassword: (email: string) => api.post<{ message?: string }>("/api/auth/forgot-password", { email }),
  resetPassword: (token: string, newPassword: string) =>
    api.post<{ message?: string }>("/api/auth/reset-password", { token, newPassword }),
  verifyEmail: (email: string, token: string) =>
    api.post<{ role: Role; pending?: boolean }>("/api/auth/verify-email", { email, token }),
};
