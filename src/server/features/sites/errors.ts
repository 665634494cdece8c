import { HttpError, rateLimited } from "@server/lib/errors";
import { ERROR_CODES } from "@shared/error-codes";
import { MESSAGES } from "@shared/messages";
import { SITES_MESSAGES } from "@shared/sites";

/** Every refusal of the sites feature. */
export const sitesErrors = {
  siteExists: () => new HttpError(409, "sites.exists", SITES_MESSAGES.siteExists),
  tooManySites: () => new HttpError(409, "sites.too_many", SITES_MESSAGES.tooManySites),
  siteNotFound: () => new HttpError(404, "sites.not_found", SITES_MESSAGES.siteNotFound),
  emailDomainFixed: () => new HttpError(409, "sites.email_domain_fixed", SITES_MESSAGES.emailDomainFixed),
  tooManyChecks: (retryAfterSeconds: number) => rateLimited(SITES_MESSAGES.tooManyChecks, retryAfterSeconds),
  noOrganisation: () => new HttpError(404, "sites.no_organisation", SITES_MESSAGES.noOrganisation),
  forbidden: () => new HttpError(403, ERROR_CODES.forbidden, MESSAGES.forbidden),
};
