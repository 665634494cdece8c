import { LOOKUP_TEXT } from "./codes";
import { SHELL_TEXT } from "./shell-texts";

/** User-facing texts. The spec's texts (§5, §8) are exact; keep them byte for byte. */
export const MESSAGES = {
  // spec §5
  passwordsDoNotMatch: "Passwords do not match",
  employerPasswordRules: "Password must be at least 8 characters, include an uppercase letter and a special character",
  employeePasswordRules: "Password must be 8+ characters, include a capital letter and a special character.",
  mustAgreeToTerms: "You must agree to the terms and privacy policy.",
  invalidUserLimit: "Enter a valid user limit.",
  // spec §8
  loginFailed: "Login failed",
  twoFactorFailed: "2FA failed",
  tooManyCodes: "Too many codes generated. Please wait and try again.",
  generateWordsFailed: "Failed to generate words",
  logoutFailed: SHELL_TEXT.logoutFailed,
  activateFailedPrefix: "Failed to activate account: ",
  /** the spec's text for both the admin's employer code and the employer's access code */
  accessCodeFailed: "Failed to generate access code. Please try again.",
  deactivateEmployerFailedPrefix: "Failed to deactivate employer: ",
  deactivationFailed: "Deactivation failed",
  sendResetFailed: "Failed to send reset email",
  resetFailed: "Failed to reset password.",
  signupFailed: "Signup failed",
  invalidCode: "Invalid code",
  activeCodeExists: "You already have an active access code. Please wait until it expires or reaches the user limit.",
  employerDashboardLoadFailed: "Failed to load dashboard data. Please try again.",
  deactivateEmployeeFailed: "Failed to deactivate employee.",
  widgetLoadFailed: "Failed to load verification widget. Please refresh the page or check your network connection.",
  notAuthorizedForPage: SHELL_TEXT.notAuthorizedForPage,
  followEmailLink: "Please follow the link sent to your email.",
  employerActivated: "Employer account activated!",
  copied: "Copied!",
  /** when the clipboard refuses (not in the spec, which only has "Copied!") */
  copyFailed: "Copy failed: select the text and copy it by hand.",
  checkingAccess: SHELL_TEXT.checkingAccess,
  noActiveCode: "No active code",
  noAccessCodeData: "No access code data.",

  // our own (not in the spec)
  invalidCredentials: "Invalid email or password.",
  signInCodeSent: "We have sent a 6-digit sign-in code to your email.",
  invalidSignInCode: "Invalid or expired code. After 5 wrong codes, sign in again to get a new one.",
  accountPending: "Your employer account is awaiting activation by the CallProof team.",
  accountDeactivated: "This account has been deactivated.",
  emailNotVerified: "Please verify your email address first: we have sent a new verification link to your inbox.",
  tooManyAttempts: "Too many attempts. Please wait and try again.",
  resetLinkSent: "If an account exists for that email, we have sent a password reset link.",
  resendVerification: "Resend verification e-mail",
  verificationResendFailed: "Could not send a new link. Please try again in a few minutes.",
  verificationResent: "If an account with that email is waiting for verification, we have sent it a new link.",
  passwordReset: "Your password has been reset. You can now sign in.",
  invalidResetLink: "This password reset link is invalid or has expired.",
  invalidVerificationLink: "This verification link is invalid or has expired.",
  passwordTooLong: "Password must be at most 128 characters.",
  passwordTooCommon: "This password is too common. Please choose a less predictable one.",
  signedOut: "Signed out.",
  notSignedIn: "You are not signed in.",
  forbidden: "You do not have permission to do this.",
  csrfFailed: "Your session security token is missing or invalid. Please reload the page and try again.",
  foreignOrigin: "Cross-site requests are not allowed.",
  notFound: "Not found.",
  malformedJson: "The request body is not valid JSON.",
  bodyTooLarge: "The request body is too large (1 MB at most).",
  unsupportedMediaType: "Send the request body as application/json.",
  internalError: "Something went wrong on our side. Please try again.",
  unstorableText:
    "The request holds a character that cannot be stored (a NUL character or half of a surrogate pair): remove it and try again.",
  refusedValue: "The request holds a value that cannot be stored. Check the values sent and try again.",
  badUrl: "The address of the request is not valid (a broken percent-encoding?).",
  codeNotVerified: LOOKUP_TEXT.notVerified,
  // web app: the login page's notices after an e-mail verification link
  emailVerified: "Your email is verified. You can now log in.",
  emailVerifiedPending:
    "Your email is verified. Your employer account is awaiting activation by the CallProof team; we will let you know when you can log in.",
  emailVerificationFailed: "Email verification failed. The link may be invalid or expired.",
  verifyingEmail: "Verifying your email...",
} as const;
