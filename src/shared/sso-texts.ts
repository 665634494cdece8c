/** Single sign-on (OpenID Connect): limits, texts and failure reasons (no zod: the login page imports them). */

import { RECENT_SIGN_IN_TEXT } from "./account-texts";

export const SSO = {
  /** a sign-in attempt's state lives this long and is used once */
  stateLifetimeMs: 10 * 60_000,
  /** sso/start and sso/callback per client address (IPv6 by /64) */
  startsPerIp: { limit: 30, windowMs: 15 * 60_000 },
  callbacksPerIp: { limit: 30, windowMs: 15 * 60_000 },
  discoverPerIp: { limit: 120, windowMs: 15 * 60_000 },
  /** and per IPv6 /48 (one site: an office signing in at nine, not one /64 after another) */
  startsPerNetwork: { limit: 300, windowMs: 15 * 60_000 },
  callbacksPerNetwork: { limit: 300, windowMs: 15 * 60_000 },
  discoverPerNetwork: { limit: 1200, windowMs: 15 * 60_000 },
  issuerMax: 500,
  clientIdMax: 255,
  clientSecretMax: 1000,
  emailMax: 254,
} as const;

/** The message of every refusal that enforced single sign-on answers. */
export const SSO_REQUIRED_MESSAGE = "Your organisation requires single sign-on.";

/** Why a single sign-on attempt failed: the `reason` of `/login?sso=failed&reason=…`. */
export const SSO_FAILURE_REASONS = [
  "invalid-state",
  "expired-state",
  "not-configured",
  "provider-refused",
  "provider-unreachable",
  "provider-error",
  "invalid-token",
  "bad-signature",
  "token-expired",
  "wrong-audience",
  "wrong-issuer",
  "wrong-nonce",
  "no-email",
  "email-unverified",
  "wrong-domain",
  "wrong-hosted-domain",
  "no-account",
  "linked-elsewhere",
  "account-deactivated",
  "account-not-active",
  "organisation-deactivated",
  "too-many-attempts",
] as const;
export type SsoFailureReason = (typeof SSO_FAILURE_REASONS)[number];

/** What /login shows for each reason, after "Single sign-on failed: ". */
export const SSO_FAILURE_TEXT: Record<SsoFailureReason, string> = {
  "invalid-state": "the sign-in link was already used or was started in another browser. Start again from this page.",
  "expired-state": "the sign-in took longer than 10 minutes. Start again from this page.",
  "not-configured": "your organisation's single sign-on connection changed or was removed. Start again.",
  "provider-refused": "your identity provider did not sign you in.",
  "provider-unreachable": "your identity provider could not be reached. Try again in a moment.",
  "provider-error": "your identity provider refused to complete the sign-in. Start again from this page.",
  "invalid-token": "your identity provider's answer could not be checked.",
  "bad-signature": "your identity provider's answer was not signed by its keys.",
  "token-expired": "your identity provider's answer had expired. Start again from this page.",
  "wrong-audience": "your identity provider's answer was meant for another application.",
  "wrong-issuer": "the answer did not come from your organisation's identity provider.",
  "wrong-nonce": "your identity provider's answer does not belong to this sign-in. Start again from this page.",
  "no-email": "your identity provider did not give an e-mail address CallProof can use.",
  "email-unverified": "your identity provider says your e-mail address is not verified.",
  "wrong-domain": "your e-mail address is not on your organisation's domain.",
  "wrong-hosted-domain": "your Google account is not part of your organisation's Google Workspace.",
  "no-account": "there is no CallProof account for your e-mail address. Ask your employer to add you.",
  "linked-elsewhere": "your CallProof account is linked to another identity at your provider. Ask your employer.",
  "account-deactivated": "your CallProof account is deactivated.",
  "account-not-active": "your CallProof account is not active yet.",
  "organisation-deactivated": "your organisation's CallProof account is deactivated.",
  "too-many-attempts": "too many sign-in attempts from your network. Wait a few minutes and try again.",
};

export const SSO_FAILED_PREFIX = "Single sign-on failed";

/** The full red message /login shows; unknown reasons get a general one. */
export function ssoFailureMessage(reason: string | null): string {
  const text = (SSO_FAILURE_REASONS as readonly string[]).includes(reason ?? "")
    ? SSO_FAILURE_TEXT[reason as SsoFailureReason]
    : "please try again.";
  return `${SSO_FAILED_PREFIX}: ${text}`;
}

export const SSO_TEXT = {
  title: "Single sign-on",
  intro:
    "Let your employees sign in with your organisation's identity provider (OpenID Connect: Entra ID, Okta, Google Workspace, Keycloak…). Register CallProof there as a web application with the redirect URI below, then paste the issuer URL, client id and client secret here.",
  issuerLabel: "Issuer URL",
  issuerHint: "https://… as your provider names it, e.g. https://login.microsoftonline.com/<tenant id>/v2.0",
  clientIdLabel: "Client id",
  clientSecretLabel: "Client secret",
  clientSecretKept: "Leave empty to keep the saved secret.",
  clientSecretHint: (hint: string) => `A secret ending in ${hint} is saved. It is never shown again.`,
  redirectUriLabel: "Redirect URI (paste into your provider)",
  copy: "Copy",
  copied: "Copied!",
  enforcedLabel: "Require single sign-on",
  enforcedHint:
    "Employees can then sign in only through your identity provider: their passwords, e-mailed codes and passkeys stop working, and their other sessions end. Superusers keep their password as a way back in.",
  jitLabel: "Create accounts on first sign-in",
  jitHint: "An employee with an e-mail on your domain who has no CallProof account gets one at their first sign-in.",
  save: "Save single sign-on",
  saving: "Checking the issuer...",
  saved: "Single sign-on saved. Every superuser of your organisation has been told by e-mail.",
  remove: "Remove single sign-on",
  removeConfirm: "Remove single sign-on? Employees then sign in with their password again.",
  removed: "Single sign-on removed.",
  notSet: "Single sign-on is not set up.",
  loadFailed: "Failed to load the single sign-on settings. Please try again.",
  // refusals
  issuerInvalid: "Enter the issuer URL, starting with https://.",
  issuerTooLong: `The issuer URL must be at most ${SSO.issuerMax} characters.`,
  issuerNotHttps: "The issuer URL must start with https://.",
  issuerCredentials: "The issuer URL must not contain a user name, password, query or fragment.",
  issuerUnreachable: (step: string) => `The issuer could not be reached: ${step}.`,
  /** the step named when the discovery document could not be fetched (connection, time limit or answer) */
  fetchStep: "its discovery document could not be fetched",
  issuerNotAnIssuer:
    "The issuer URL does not serve an OpenID Connect discovery document (/.well-known/openid-configuration).",
  issuerMismatch:
    "The discovery document names another issuer. Enter the issuer URL exactly as your identity provider gives it.",
  issuerMultiTenant:
    "This is a multi-tenant endpoint ({tenantid}). Enter your own tenant's issuer URL, e.g. https://login.microsoftonline.com/<tenant id>/v2.0.",
  issuerEndpointNotHttps: "The discovery document names an endpoint that is not https.",
  issuerIncomplete:
    "The discovery document lacks an authorization, token or key-set endpoint, or does not offer the authorization code flow.",
  clientIdInvalid: "Enter the client id.",
  clientSecretRequired: "Enter the client secret.",
  clientSecretRequiredAgain: "Enter the client secret again: the issuer or client id changed.",
  recentSignInNeeded: RECENT_SIGN_IN_TEXT,
  notConfigured: "Single sign-on is not set up for this organisation.",
  noSsoForDomain: "Single sign-on is not set up for this e-mail address.",
  // /login
  continueWithSso: "Continue with single sign-on",
  startFailed: "Single sign-on could not be started. Please try again.",
  ssoAvailable: (organisation: string) => `${organisation} signs you in with single sign-on.`,
  ssoRequired: (organisation: string) => `${organisation} requires single sign-on.`,
  orUsePassword: "Or sign in with your password",
} as const;
