import { HttpError } from "@server/lib/errors";
import { ADMIN_MESSAGES } from "@shared/admin";
import { ERROR_CODES } from "@shared/error-codes";

/** Every error of the admin dashboard's actions. */
export const adminErrors = {
  pendingNotFound: () => new HttpError(404, ERROR_CODES.pendingNotFound, ADMIN_MESSAGES.pendingNotFound),
  emailNotVerifiedYet: () =>
    new HttpError(409, ERROR_CODES.employerEmailNotVerified, ADMIN_MESSAGES.emailNotVerifiedYet),
  employerNotFound: () => new HttpError(404, ERROR_CODES.employerNotFound, ADMIN_MESSAGES.employerNotFound),
  accountNotFound: () => new HttpError(404, ERROR_CODES.accountNotFound, ADMIN_MESSAGES.accountNotFound),
  deactivatedOrganisationNotFound: () =>
    new HttpError(404, ERROR_CODES.deactivatedOrganisationNotFound, ADMIN_MESSAGES.deactivatedOrganisationNotFound),
};
