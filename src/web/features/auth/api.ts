import { call, client } from "@web/lib/api";

/** The sign-in and account-recovery calls. */
export const authApi = {
  login: (email: string, password: string) => call(client.POST("/api/auth/login", { body: { email, password } })),
  verify2fa: (email: string, code: string) => call(client.POST("/api/auth/verify-2fa", { body: { email, code } })),
  forgotPassword: (email: string) => call(client.POST("/api/auth/forgot-password", { body: { email } })),
  resetPassword: (token: string, newPassword: string) =>
    call(client.POST("/api/auth/reset-password", { body: { token, newPassword } })),
  verifyEmail: (email: string, token: string) =>
    call(client.POST("/api/auth/verify-email", { body: { email, token } })),
  /** whether the e-mail's organisation signs in with single sign-on */
  ssoDiscover: (email: string, signal?: AbortSignal) =>
    call(client.GET("/api/auth/sso/discover", { params: { query: { email } }, signal })),
  /**
   * Starts a single sign-on: a POST with the CSRF token (so only this page can start one), answering the
   * URL the browser then goes to (the identity provider, or /login with the reason it failed).
   */
  ssoStart: (email: string) => call(client.POST("/api/auth/sso/start", { body: { email } })),
};
