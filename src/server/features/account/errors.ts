import { HttpError } from "@server/lib/errors";
import { ACCOUNT_TEXT } from "@shared/account";
import { MESSAGES } from "@shared/messages";

/** Every error the account feature answers with: its stable code, its status and the text shown. */
const ERRORS = {
  wrongCurrentPassword: { status: 400, code: "account.wrong_password", message: ACCOUNT_TEXT.wrongCurrentPassword },
  samePassword: { status: 400, code: "account.same_password", message: ACCOUNT_TEXT.samePassword },
  commonPassword: { status: 400, code: "account.common_password", message: MESSAGES.passwordTooCommon },
  passkeyNotFound: { status: 404, code: "passkey.not_found", message: ACCOUNT_TEXT.passkeyNotFound },
  passkeyNeedsRecentSignIn: {
    status: 403,
    code: "passkey.recent_sign_in_required",
    message: ACCOUNT_TEXT.passkeyNeedsRecentSignIn,
  },
  passkeyAlreadyRegistered: {
    status: 409,
    code: "passkey.already_registered",
    message: ACCOUNT_TEXT.passkeyAlreadyRegistered,
  },
  passkeyRegistrationFailed: {
    status: 400,
    code: "passkey.registration_failed",
    message: ACCOUNT_TEXT.passkeyRegistrationFailed,
  },
  passkeyChallengeInvalid: {
    status: 400,
    code: "passkey.challenge_invalid",
    message: ACCOUNT_TEXT.passkeyChallengeInvalid,
  },
  passkeyUnknown: { status: 401, code: "passkey.unknown", message: ACCOUNT_TEXT.passkeyUnknown },
  passkeySignInFailed: { status: 401, code: "passkey.sign_in_failed", message: ACCOUNT_TEXT.passkeySignInFailed },
  accountDeactivated: { status: 403, code: "auth.account_deactivated", message: MESSAGES.accountDeactivated },
  accountPending: { status: 403, code: "auth.account_pending", message: MESSAGES.accountPending },
  emailNotVerified: { status: 403, code: "auth.email_not_verified", message: MESSAGES.emailNotVerified },
  notSignedIn: { status: 401, code: "auth.not_signed_in", message: MESSAGES.notSignedIn },
  rateLimited: { status: 429, code: "rate_limited", message: MESSAGES.tooManyAttempts },
} as const;

export type AccountErrorName = keyof typeof ERRORS;

/** An HttpError of the account feature, by name. */
export class AccountError extends HttpError {
  constructor(kind: AccountErrorName, headers: Record<string, string> = {}) {
    const { status, message, code } = ERRORS[kind];
    super(status, code, message, headers);
  }
}

export const accountError = (kind: AccountErrorName) => new AccountError(kind);

export const rateLimited = (retryAfterSeconds: number) =>
  new AccountError("rateLimited", { "retry-after": String(Math.max(1, Math.ceil(retryAfterSeconds))) });
