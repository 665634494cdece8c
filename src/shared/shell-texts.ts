/**
 * The spec's texts of the app's frame (navigation, route guards, sign-out), apart from MESSAGES so that
 * the first bundle of a public page carries only these; MESSAGES repeats them from here.
 */
export const SHELL_TEXT = {
  logoutFailed: "Logout failed",
  checkingAccess: "Checking access...",
  notAuthorizedForPage: "You are not authorized to access this page.",
} as const;
