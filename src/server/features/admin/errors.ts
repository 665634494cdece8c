import { HttpError } from "@server/lib/errors";
import { ADMIN_MESSAGES } from "@shared/admin";

/** Every error of the admin dashboard's actions. */
export const adminErrors = {
  pendingNotFound: () => new HttpError(404, "admin.pending_not_found", ADMIN_MESSAGES.pendingNotFound),
  emailNotVerifiedYet: () => new HttpError(409, "admin.email_not_verified", ADMIN_MESSAGES.emailNotVerifiedYet),
  employerNotFound: () => new HttpError(404, "admin.employer_not_found", ADMIN_MESSAGES.employerNotFound),
};
