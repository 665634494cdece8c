import { HttpError } from "@server/lib/errors";
import { API_KEY_TEXT } from "@shared/api-keys";
import { ERROR_CODES } from "@shared/error-codes";

/** Refusals of the integration API's own calls (the key check's are in features/api-keys). */
export const v1Errors = {
  employeeNotFound: () => new HttpError(404, ERROR_CODES.apiEmployeeNotFound, API_KEY_TEXT.employeeNotFound),
};
