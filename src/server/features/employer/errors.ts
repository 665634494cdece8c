import { HttpError } from "@server/lib/errors";
import { EMPLOYER_MESSAGES } from "@shared/employer";
import { MESSAGES } from "@shared/messages";

/** Every error of the employer dashboard (its audit page included). */
export const employerErrors = {
  noOrganisation: () => new HttpError(404, "employer.no_organisation", EMPLOYER_MESSAGES.noOrganisation),
  employeeNotFound: () => new HttpError(404, "employer.employee_not_found", EMPLOYER_MESSAGES.employeeNotFound),
  activeCodeExists: () => new HttpError(409, "employer.active_code_exists", MESSAGES.activeCodeExists),
};
