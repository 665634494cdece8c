import { HttpError, rateLimited } from "@server/lib/errors";
import { API_KEY_TEXT, type ApiKeyScope } from "@shared/api-keys";
import { ERROR_CODES } from "@shared/error-codes";

/** Every refusal of the API keys and of /api/v1's key check. */
export const apiKeysErrors = {
  tooMany: () => new HttpError(409, ERROR_CODES.apiKeysTooMany, API_KEY_TEXT.tooMany),
  notFound: () => new HttpError(404, ERROR_CODES.apiKeyNotFound, API_KEY_TEXT.notFound),
  missingKey: () => new HttpError(401, ERROR_CODES.apiKeyInvalid, API_KEY_TEXT.missingKey),
  invalidKey: () => new HttpError(401, ERROR_CODES.apiKeyInvalid, API_KEY_TEXT.invalidKey),
  missingScope: (scope: ApiKeyScope) =>
    new HttpError(403, ERROR_CODES.apiScopeMissing, API_KEY_TEXT.missingScope(scope)),
  tooManyRequests: (seconds: number) => rateLimited(API_KEY_TEXT.tooManyRequests, seconds),
  tooManyRefusals: (seconds: number) => rateLimited(API_KEY_TEXT.tooManyRefusals, seconds),
};
