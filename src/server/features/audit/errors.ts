import { HttpError } from "@server/lib/errors";
import { EMPLOYER_MESSAGES } from "@shared/employer";

/** Every error of reading the audit log (besides the role guards'). */
export const auditErrors = {
  noOrganisation: () => new HttpError(404, "audit.no_organisation", EMPLOYER_MESSAGES.noOrganisation),
};
