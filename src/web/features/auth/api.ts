import type { messageAnswer } from "@shared/answers";
import type { roleAnswer, verifyEmailAnswer } from "@shared/auth";
import type { SsoDiscoverAnswer, SsoStartAnswer } from "@shared/sso";
import { api } from "@web/lib/api";
import type { z } from "zod";

type Message = z.infer<typeof messageAnswer>;

/** The sign-in and account-recovery calls. */
export const authApi = {
  login: (email: string, password: string) => api.post<Message>("/api/auth/login", { email, password }),
  verify2fa: (email: string, code: string) =>
    api.post<z.infer<typeof roleAnswer>>("/api/auth/verify-2fa", { email, code }),
  forgotPassword: (email: string) => api.post<Message>("/api/auth/forgot-password", { email }),
  resetPassword: (token: string, newPassword: string) =>
    api.post<Message>("/api/auth/reset-password", { token, newPassword }),
  verifyEmail: (email: string, token: string) =>
    api.post<z.infer<typeof verifyEmailAnswer>>("/api/auth/verify-email", { email, token }),
  /** whether the e-mail's organisation signs in with single sign-on */
  ssoDiscover: (email: string, signal?: AbortSignal) =>
    api.get<SsoDiscoverAnswer>(`/api/auth/sso/discover?email=${encodeURIComponent(email)}`, { signal }),
  /**
   * Starts a single sign-on: a POST with the CSRF token (so only this page can start one), answering the
   * URL the browser then goes to (the identity provider, or /login with the reason it failed).
   */
  ssoStart: (email: string) => api.post<SsoStartAnswer>("/api/auth/sso/start", { email }),
};
