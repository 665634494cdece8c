import { HttpError } from "@server/lib/errors";
import { EMPLOYER_MESSAGES } from "@shared/employer";
import { ERROR_CODES } from "@shared/error-codes";
import { MESSAGES } from "@shared/messages";

/** Every error of the employer dashboard (its audit page included). */
export const employerErrors = {
  employeeNotFound: () => new HttpError(404, ERROR_CODES.employeeNotFound, EMPLOYER_MESSAGES.employeeNotFound),
  activeCodeExists: () => new HttpError(409, ERROR_CODES.activeAccessCodeExists, MESSAGES.activeCodeExists),
};
