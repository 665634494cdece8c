import { HttpError, rateLimited } from "@server/lib/errors";
import { ERROR_CODES } from "@shared/error-codes";
import { MESSAGES } from "@shared/messages";
import { SSO_REQUIRED_MESSAGE, SSO_TEXT } from "@shared/sso";

/** Every refusal of the single sign-on feature (the callback's failures are redirects, not these). */
export const ssoErrors = {
  invalidIssuer: (message: string) => new HttpError(400, ERROR_CODES.ssoInvalidIssuer, message),
  secretRequired: () => new HttpError(400, ERROR_CODES.ssoSecretRequired, SSO_TEXT.clientSecretRequired),
  secretRequiredAgain: () => new HttpError(400, ERROR_CODES.ssoSecretRequired, SSO_TEXT.clientSecretRequiredAgain),
  notConfigured: () => new HttpError(404, ERROR_CODES.ssoNotConfigured, SSO_TEXT.notConfigured),
  noSsoForDomain: () => new HttpError(404, ERROR_CODES.ssoNotConfigured, SSO_TEXT.noSsoForDomain),
  /** enforced SSO: the organisation's clients sign in only through their identity provider */
  required: () => new HttpError(403, ERROR_CODES.ssoRequired, SSO_REQUIRED_MESSAGE),
  tooManyAttempts: (seconds: number) => rateLimited(MESSAGES.tooManyAttempts, seconds),
  /** a start another site's page asked for (the browser says so in Sec-Fetch-Site) */
  crossSiteStart: () => new HttpError(403, ERROR_CODES.foreignOrigin, MESSAGES.foreignOrigin),
};
