import { HttpError, rateLimited } from "@server/lib/errors";
import { ACCOUNT_TEXT } from "@shared/account";
import { ERROR_CODES } from "@shared/error-codes";
import { MESSAGES } from "@shared/messages";

/** Every error of the account page and passkeys (sign-in refusals are the users home's). */
export const accountErrors = {
  wrongCurrentPassword: () => new HttpError(400, ERROR_CODES.wrongCurrentPassword, ACCOUNT_TEXT.wrongCurrentPassword),
  samePassword: () => new HttpError(400, ERROR_CODES.samePassword, ACCOUNT_TEXT.samePassword),
  commonPassword: () => new HttpError(400, ERROR_CODES.commonPassword, MESSAGES.passwordTooCommon),
  passkeyNotFound: () => new HttpError(404, ERROR_CODES.passkeyNotFound, ACCOUNT_TEXT.passkeyNotFound),
  passkeyAlreadyRegistered: () =>
    new HttpError(409, ERROR_CODES.passkeyAlreadyRegistered, ACCOUNT_TEXT.passkeyAlreadyRegistered),
  passkeyRegistrationFailed: () =>
    new HttpError(400, ERROR_CODES.passkeyRegistrationFailed, ACCOUNT_TEXT.passkeyRegistrationFailed),
  passkeyChallengeInvalid: () =>
    new HttpError(400, ERROR_CODES.passkeyChallengeInvalid, ACCOUNT_TEXT.passkeyChallengeInvalid),
  passkeyUnknown: () => new HttpError(401, ERROR_CODES.passkeyUnknown, ACCOUNT_TEXT.passkeyUnknown),
  passkeySignInFailed: () => new HttpError(401, ERROR_CODES.passkeySignInFailed, ACCOUNT_TEXT.passkeySignInFailed),
  tooManyAttempts: (retryAfterSeconds: number) => rateLimited(MESSAGES.tooManyAttempts, retryAfterSeconds),
};
