import { HttpError, rateLimited } from "@server/lib/errors";
import { API_KEY_TEXT } from "@shared/api-keys";
import { CALLS_TEXT } from "@shared/calls";
import { ERROR_CODES } from "@shared/error-codes";

/** Every error the calls routes answer. */
export const callsErrors = {
  callNotFound: () => new HttpError(404, ERROR_CODES.callNotFound, CALLS_TEXT.callNotFound),
  checkNotFound: () => new HttpError(404, ERROR_CODES.checkNotFound, CALLS_TEXT.checkNotFound),
  callEnded: () => new HttpError(409, ERROR_CODES.callEnded, CALLS_TEXT.callEnded),
  checkPending: () => new HttpError(409, ERROR_CODES.checkConflict, CALLS_TEXT.checkPending),
  checkDenied: () => new HttpError(409, ERROR_CODES.checkConflict, CALLS_TEXT.checkDenied),
  checkAnswered: () => new HttpError(409, ERROR_CODES.checkConflict, CALLS_TEXT.checkAnswered),
  notDisownable: () => new HttpError(409, ERROR_CODES.conflict, CALLS_TEXT.notOnlyApi),
  tooManyStarts: (retryAfterSeconds: number) => rateLimited(CALLS_TEXT.tooManyStarts, retryAfterSeconds),
  tooManyOrganisationStarts: (retryAfterSeconds: number) =>
    rateLimited(CALLS_TEXT.tooManyOrganisationStarts, retryAfterSeconds),
  tooManyChecks: (retryAfterSeconds: number) => rateLimited(CALLS_TEXT.tooManyChecks, retryAfterSeconds),
  tooManyEmployeeChecks: (retryAfterSeconds: number) =>
    rateLimited(CALLS_TEXT.tooManyEmployeeChecks, retryAfterSeconds),
  tooManyStreams: () => rateLimited(CALLS_TEXT.tooManyStreams, 60),
  organisationDeactivated: () => new HttpError(403, ERROR_CODES.forbidden, CALLS_TEXT.organisationDeactivated),
  employeeNotFound: () => new HttpError(404, ERROR_CODES.apiEmployeeNotFound, API_KEY_TEXT.employeeNotFound),
  notAnEmployee: () => new HttpError(403, ERROR_CODES.forbidden, CALLS_TEXT.notAnEmployee),
};
