import { HttpError, rateLimited } from "@server/lib/errors";
import { CODES_TEXT } from "@shared/codes";
import { ERROR_CODES } from "@shared/error-codes";
import { MESSAGES } from "@shared/messages";

/** Every error the identity-code routes answer. */
export const codesErrors = {
  tooManyCodes: (retryAfterSeconds: number) => rateLimited(MESSAGES.tooManyCodes, retryAfterSeconds),
  /** `message`: the text in the widget's language (English by default) */
  tooManyLookups: (retryAfterSeconds: number, message: string = CODES_TEXT.tooManyLookups) =>
    rateLimited(message, retryAfterSeconds),
  generateUnavailable: () => new HttpError(503, ERROR_CODES.unavailable, CODES_TEXT.generateUnavailable),
  verifyUnavailable: (message: string = CODES_TEXT.verifyUnavailable) =>
    new HttpError(503, ERROR_CODES.unavailable, message),
  codeNotFound: () => new HttpError(404, ERROR_CODES.notFound, CODES_TEXT.codeNotFound),
  tooManyStreams: () => rateLimited(CODES_TEXT.tooManyStreams, 60),
};
