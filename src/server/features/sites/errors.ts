import { conflict, forbidden, notFound, tooManyRequests } from "@server/lib/errors";
import { MESSAGES } from "@shared/messages";
import { SITES_MESSAGES } from "@shared/sites";

/** Every refusal of the sites feature. */
export const sitesErrors = {
  siteExists: () => conflict(SITES_MESSAGES.siteExists),
  tooManySites: () => conflict(SITES_MESSAGES.tooManySites),
  siteNotFound: () => notFound(SITES_MESSAGES.siteNotFound),
  emailDomainFixed: () => conflict(SITES_MESSAGES.emailDomainFixed),
  tooManyChecks: (retryAfterSeconds: number) => tooManyRequests(SITES_MESSAGES.tooManyChecks, retryAfterSeconds),
  noOrganisation: () => notFound(SITES_MESSAGES.noOrganisation),
  forbidden: () => forbidden(MESSAGES.forbidden),
};
