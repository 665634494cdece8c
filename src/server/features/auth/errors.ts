import { HttpError, rateLimited } from "@server/lib/errors";
import { ERROR_CODES } from "@shared/error-codes";
import { MESSAGES } from "@shared/messages";

/** Every error the sign-in, password and e-mail verification flows answer. */
export const authErrors = {
  invalidCredentials: () => new HttpError(401, ERROR_CODES.invalidCredentials, MESSAGES.invalidCredentials),
  notSignedIn: () => new HttpError(401, ERROR_CODES.notSignedIn, MESSAGES.notSignedIn),
  invalidCode: () => new HttpError(401, ERROR_CODES.invalidSignInCode, MESSAGES.invalidSignInCode),
  tooManyAttempts: (retryAfterSeconds: number) => rateLimited(MESSAGES.tooManyAttempts, retryAfterSeconds),
  invalidResetLink: () => new HttpError(400, ERROR_CODES.invalidResetLink, MESSAGES.invalidResetLink),
  invalidVerificationLink: () =>
    new HttpError(400, ERROR_CODES.invalidVerificationLink, MESSAGES.invalidVerificationLink),
};
