import { HttpError, rateLimited } from "@server/lib/errors";
import { ERROR_CODES } from "@shared/error-codes";
import { MESSAGES } from "@shared/messages";
import { ONBOARDING_MESSAGES } from "@shared/onboarding";

/** Every error of sign-up (invitation and access codes, registration) and of inviting an employer. */
export const onboardingErrors = {
  tooManyGuesses: (retryAfterSeconds: number) => rateLimited(MESSAGES.tooManyAttempts, retryAfterSeconds),
  invalidAccessCode: () => new HttpError(400, "onboarding.invalid_access_code", ONBOARDING_MESSAGES.invalidAccessCode),
  accessCodeFull: () => new HttpError(400, "onboarding.access_code_full", ONBOARDING_MESSAGES.accessCodeFull),
  wrongInvitationEmail: () =>
    new HttpError(400, "onboarding.wrong_invitation_email", ONBOARDING_MESSAGES.wrongInvitationEmail),
  employeeWrongDomain: () => new HttpError(400, "onboarding.wrong_domain", ONBOARDING_MESSAGES.employeeWrongDomain),
  invalidWebsite: () => new HttpError(400, ERROR_CODES.validation, ONBOARDING_MESSAGES.invalidWebsite),
  organisationExists: () =>
    new HttpError(409, "onboarding.organisation_exists", ONBOARDING_MESSAGES.organisationExists),
  emailTaken: () => new HttpError(409, "onboarding.email_taken", ONBOARDING_MESSAGES.emailTaken),
};
