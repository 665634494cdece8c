/** Business constants of CONTRACT.md and spec §9. One source for server and web app. */
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export const ROLES = ["admin", "superuser", "client"] as const;
export type Role = (typeof ROLES)[number];

export const USER_STATUSES = ["pending", "active", "deactivated"] as const;
export type UserStatus = (typeof USER_STATUSES)[number];

export const IDENTITY_CODE = {
  words: 3,
  lifetimeMs: MINUTE,
  generatePerWindow: 3,
  generateWindowMs: MINUTE,
  lookupsPerWindow: 20,
  lookupWindowMs: HOUR,
  /** look-ups a rolling hour from one IPv6 /48, on top of the per-/64 (or IPv4 address) budget */
  lookupsPerNetworkPerWindow: 200,
} as const;

export const SIGN_IN = {
  codeDigits: 6,
  codeLifetimeMs: 10 * MINUTE,
  codeMaxTries: 5,
  failureWindowMs: 15 * MINUTE,
  maxFailuresPerAccount: 10,
  maxFailuresPerIp: 30,
  /** wrong sign-in codes across codes: per account an hour, per IP in 15 minutes */
  maxWrongCodesPerAccount: 10,
  wrongCodeAccountWindowMs: HOUR,
  maxWrongCodesPerIp: 30,
  wrongCodeIpWindowMs: 15 * MINUTE,
} as const;

/** The non-secret cookie that tells the web app a session cookie is there (so it may ask whoami). */
export const SIGNED_IN_HINT = "cp_signed_in";

export const SESSION = {
  idleMs: 30 * MINUTE,
  absoluteMs: 12 * HOUR,
  /** last_seen_at is written at most this often, to keep reads cheap */
  touchEveryMs: MINUTE,
} as const;

export const TOKEN_LIFETIME = {
  emailVerificationMs: DAY,
  passwordResetMs: HOUR,
  employerInvitationMs: 7 * DAY,
  employeeAccessCodeMs: 7 * DAY,
} as const;

export const PASSWORD = { minLength: 8, maxLength: 128 } as const;

export const UI_TIMING = {
  activationBannerMs: 3000,
  logoutRedirectMs: 200,
  resetRedirectMs: 2000,
  copiedMs: 2000,
  deactivateConfirmMs: 5000,
  countdownTickMs: 1000,
  widgetLoadTries: 3,
  widgetLoadDelayMs: 800,
} as const;

export const PAGE_SIZE = 10;
export const MAX_BODY_BYTES = 1024 * 1024;
export const SUPPORT_REPLY_DAYS = 3;
export const MINIMUM_AGE = 18;
