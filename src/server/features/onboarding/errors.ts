import { HttpError, rateLimited } from "@server/lib/errors";
import { ERROR_CODES } from "@shared/error-codes";
import { MESSAGES } from "@shared/messages";
import { ONBOARDING_MESSAGES } from "@shared/onboarding";

/** Every error of sign-up (invitation and access codes, registration) and of inviting an employer. */
export const onboardingErrors = {
  tooManyGuesses: (retryAfterSeconds: number) => rateLimited(MESSAGES.tooManyAttempts, retryAfterSeconds),
  invalidAccessCode: () => new HttpError(400, ERROR_CODES.invalidAccessCode, ONBOARDING_MESSAGES.invalidAccessCode),
  accessCodeFull: () => new HttpError(400, ERROR_CODES.accessCodeFull, ONBOARDING_MESSAGES.accessCodeFull),
  wrongInvitationEmail: () =>
    new HttpError(400, ERROR_CODES.wrongInvitationEmail, ONBOARDING_MESSAGES.wrongInvitationEmail),
  employeeWrongDomain: () =>
    new HttpError(400, ERROR_CODES.employeeWrongDomain, ONBOARDING_MESSAGES.employeeWrongDomain),
  invalidWebsite: () => new HttpError(400, ERROR_CODES.validation, ONBOARDING_MESSAGES.invalidWebsite),
  organisationExists: () => new HttpError(409, ERROR_CODES.organisationExists, ONBOARDING_MESSAGES.organisationExists),
  emailTaken: () => new HttpError(409, ERROR_CODES.emailTaken, ONBOARDING_MESSAGES.emailTaken),
};
