/**
 * Machine codes of error answers (`{message, code}`). The message is for people and may change;
 * the code is stable, so clients branch on it. Codes the web app relies on live here; each server
 * feature declares the rest next to its errors.
 */
export const ERROR_CODES = {
  /** The CSRF token is missing or does not match: the web client fetches a new one and retries once. */
  csrfFailed: "csrf.failed",
  /** The request came from another site's page. */
  foreignOrigin: "csrf.foreign_origin",
  /** Right password, but the e-mail address is not verified yet (a new link was sent). */
  emailNotVerified: "auth.email_not_verified",
  notSignedIn: "auth.not_signed_in",
  /** The password-reset link is unknown, used or expired: the page offers to ask for a new one. */
  invalidResetLink: "auth.invalid_reset_link",
  forbidden: "forbidden",
  /** Too many attempts; the answer carries `Retry-After`. */
  rateLimited: "rate_limited",
  /** The body, query or path parameters do not match the route's schema. */
  validation: "validation",
  malformedJson: "malformed_json",
  bodyTooLarge: "body_too_large",
  unsupportedMediaType: "unsupported_media_type",
  badRequest: "bad_request",
  notFound: "not_found",
  conflict: "conflict",
  /** A dependency (database, mail) is down; trying again later may work. */
  unavailable: "unavailable",
  internal: "internal",
} as const;

export type ErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];
