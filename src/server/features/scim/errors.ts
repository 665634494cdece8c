import { HttpError, rateLimited } from "@server/lib/errors";
import { ERROR_CODES, type ErrorCode } from "@shared/error-codes";
import { MESSAGES } from "@shared/messages";
import { SCIM_TEXT } from "@shared/scim";

/** The SCIM `scimType` of each SCIM error code (RFC 7644 3.12); the error handler of /api/scim/v2 adds it. */
export const SCIM_TYPES: Partial<Record<ErrorCode, string>> = {
  [ERROR_CODES.scimInvalidValue]: "invalidValue",
  [ERROR_CODES.scimInvalidSyntax]: "invalidSyntax",
  [ERROR_CODES.scimInvalidFilter]: "invalidFilter",
  [ERROR_CODES.scimInvalidPath]: "invalidPath",
  [ERROR_CODES.scimNoTarget]: "noTarget",
  [ERROR_CODES.scimUniqueness]: "uniqueness",
  [ERROR_CODES.scimMutability]: "mutability",
};

export const scimErrors = {
  // the dashboard's token calls
  noToken: () => new HttpError(404, ERROR_CODES.scimNoToken, SCIM_TEXT.noTokenToRevoke),
  // the SCIM API (answered in the SCIM error schema)
  unauthorized: () =>
    new HttpError(401, ERROR_CODES.scimUnauthorized, "A valid SCIM bearer token is required.", {
      "www-authenticate": 'Bearer realm="CallProof SCIM"',
    }),
  tooManyRequests: (retryAfterSeconds: number) => rateLimited(MESSAGES.tooManyAttempts, retryAfterSeconds),
  notFound: (detail = "No such user.") => new HttpError(404, ERROR_CODES.scimNotFound, detail),
  invalidValue: (detail: string) => new HttpError(400, ERROR_CODES.scimInvalidValue, detail),
  invalidSyntax: (detail: string) => new HttpError(400, ERROR_CODES.scimInvalidSyntax, detail),
  invalidFilter: (detail: string) => new HttpError(400, ERROR_CODES.scimInvalidFilter, detail),
  invalidPath: (detail: string) => new HttpError(400, ERROR_CODES.scimInvalidPath, detail),
  noTarget: (detail: string) => new HttpError(400, ERROR_CODES.scimNoTarget, detail),
  uniqueness: () =>
    new HttpError(409, ERROR_CODES.scimUniqueness, "Another CallProof account already has this userName."),
  mutability: (detail: string) => new HttpError(400, ERROR_CODES.scimMutability, detail),
};
