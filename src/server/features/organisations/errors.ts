import { HttpError } from "@server/lib/errors";
import { EMPLOYER_MESSAGES } from "@shared/employer";
import { ERROR_CODES } from "@shared/error-codes";
import { SITES_MESSAGES } from "@shared/sites";

export const organisationsErrors = {
  /** the caller acts for no organisation (an admin who named none, an account without one) */
  noOrganisation: () => new HttpError(404, ERROR_CODES.noOrganisation, EMPLOYER_MESSAGES.noOrganisation),
  /** an admin named an organisation that does not exist */
  unknownOrganisation: () => new HttpError(404, ERROR_CODES.noOrganisation, SITES_MESSAGES.noOrganisation),
};
