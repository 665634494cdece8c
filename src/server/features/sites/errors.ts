import { HttpError, rateLimited } from "@server/lib/errors";
import { ERROR_CODES } from "@shared/error-codes";
import { SITES_MESSAGES } from "@shared/sites";

/** Every refusal of the sites feature. */
export const sitesErrors = {
  siteExists: () => new HttpError(409, ERROR_CODES.siteExists, SITES_MESSAGES.siteExists),
  tooManySites: () => new HttpError(409, ERROR_CODES.tooManySites, SITES_MESSAGES.tooManySites),
  siteNotFound: () => new HttpError(404, ERROR_CODES.siteNotFound, SITES_MESSAGES.siteNotFound),
  emailDomainFixed: () => new HttpError(409, ERROR_CODES.emailDomainFixed, SITES_MESSAGES.emailDomainFixed),
  tooManyChecks: (retryAfterSeconds: number) => rateLimited(SITES_MESSAGES.tooManyChecks, retryAfterSeconds),
};
