import { send } from "@web/lib/api";

/** The sign-in and account-recovery calls. */
export const authApi = {
  login: (email: string, password: string) => send("login", { body: { email, password } }),
  verify2fa: (email: string, code: string) => send("verifySignInCode", { body: { email, code } }),
  forgotPassword: (email: string) => send("forgotPassword", { body: { email } }),
  resetPassword: (token: string, newPassword: string) => send("resetPassword", { body: { token, newPassword } }),
  verifyEmail: (email: string, token: string) => send("verifyEmail", { body: { email, token } }),
  /** whether the e-mail's organisation signs in with single sign-on */
  ssoDiscover: (email: string, signal?: AbortSignal) => send("discoverSso", { params: { query: { email } }, signal }),
  /**
   * Starts a single sign-on: a POST with the CSRF token (so only this page can start one), answering the
   * URL the browser then goes to (the identity provider, or /login with the reason it failed).
   */
  ssoStart: (email: string) => send("startSsoFromPage", { body: { email } }),
};
