/**
 * Machine codes of error answers (`{message, code}`). The message is for people and may change;
 * the code is stable, so clients branch on it. Every code the server answers is declared here, once:
 * a feature's `errors.ts` names its errors (status, code, message) with these codes.
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
  /** The body, query, path or a header holds text no database stores (a NUL, a lone surrogate). */
  unstorableText: "unstorable_text",
  /** The database refused a value of the request (text that is no number, a number out of range…). */
  refusedValue: "refused_value",
  notFound: "not_found",
  conflict: "conflict",
  /** A dependency (database, mail) is down; trying again later may work. */
  unavailable: "unavailable",
  internal: "internal",

  // sign-in and accounts
  invalidCredentials: "auth.invalid_credentials",
  invalidSignInCode: "auth.invalid_code",
  accountDeactivated: "auth.account_deactivated",
  accountPending: "auth.account_pending",
  invalidVerificationLink: "auth.invalid_verification_link",
  passwordTooCommon: "password.too_common",
  wrongCurrentPassword: "account.wrong_password",
  samePassword: "account.same_password",
  commonPassword: "account.common_password",
  passkeyNotFound: "passkey.not_found",
  passkeyNeedsRecentSignIn: "passkey.recent_sign_in_required",
  passkeyAlreadyRegistered: "passkey.already_registered",
  passkeyRegistrationFailed: "passkey.registration_failed",
  passkeyChallengeInvalid: "passkey.challenge_invalid",
  passkeyUnknown: "passkey.unknown",
  passkeySignInFailed: "passkey.sign_in_failed",

  // organisations, onboarding and the dashboards
  /** The caller acts for no organisation, or an admin named one that does not exist. */
  noOrganisation: "organisation.none",
  invalidAccessCode: "onboarding.invalid_access_code",
  accessCodeFull: "onboarding.access_code_full",
  wrongInvitationEmail: "onboarding.wrong_invitation_email",
  employeeWrongDomain: "onboarding.wrong_domain",
  organisationExists: "onboarding.organisation_exists",
  emailTaken: "onboarding.email_taken",
  pendingNotFound: "admin.pending_not_found",
  employerEmailNotVerified: "admin.email_not_verified",
  employerNotFound: "admin.employer_not_found",
  accountNotFound: "admin.account_not_found",
  deactivatedOrganisationNotFound: "admin.deactivated_organisation_not_found",
  employeeNotFound: "employer.employee_not_found",
  activeAccessCodeExists: "employer.active_code_exists",
  siteExists: "sites.exists",
  tooManySites: "sites.too_many",
  siteNotFound: "sites.not_found",
  emailDomainFixed: "sites.email_domain_fixed",
  webhookInvalidUrl: "webhooks.invalid_url",
  webhookNoEndpoint: "webhooks.no_endpoint",
  webhookNeedsRecentSignIn: "webhooks.recent_sign_in_required",
  // API keys and /api/v1
  apiKeyRecentSignIn: "api_keys.recent_sign_in_required",
  apiKeysTooMany: "api_keys.too_many",
  apiKeyNotFound: "api_keys.not_found",
  apiKeyInvalid: "api.key_invalid",
  apiScopeMissing: "api.scope_missing",
  apiEmployeeNotFound: "api.employee_not_found",
  // calls
  customerRefInvalid: "calls.customer_ref_invalid",
  callNotFound: "calls.not_found",
  checkNotFound: "calls.check_not_found",
  checkConflict: "calls.check_conflict",
  callEnded: "calls.ended",
  apiScopesConflict: "api_keys.scopes_conflict",
  // single sign-on
  ssoRequired: "sso.required",
  ssoInvalidIssuer: "sso.invalid_issuer",
  ssoSecretRequired: "sso.secret_required",
  ssoRecentSignInRequired: "sso.recent_sign_in_required",
  ssoNotConfigured: "sso.not_configured",
  // the customer's call status (status tokens, the call-status component)
  statusOriginNotVerified: "call_status.origin_not_verified",
  statusTokenInvalid: "call_status.token_invalid",
  statusWrongOrigin: "call_status.wrong_origin",
  statusCannotAnswer: "call_status.cannot_answer",

  // SCIM provisioning (answered in the SCIM error schema under /api/scim/v2)
  scimUnauthorized: "scim.unauthorized",
  scimNotFound: "scim.not_found",
  scimInvalidValue: "scim.invalid_value",
  scimInvalidSyntax: "scim.invalid_syntax",
  scimInvalidFilter: "scim.invalid_filter",
  scimInvalidPath: "scim.invalid_path",
  scimNoTarget: "scim.no_target",
  scimUniqueness: "scim.uniqueness",
  scimMutability: "scim.mutability",
  scimNoToken: "scim.no_token",
  scimNeedsRecentSignIn: "scim.recent_sign_in_required",
} as const;

export type ErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];
