/** Account and passkey constants, texts and device names. Free of the schema library, so the sign-in page can use them. */
const MINUTE = 60_000;

export const PASSKEY = {
  /** a WebAuthn challenge is single use and lives this long */
  challengeLifetimeMs: 5 * MINUTE,
  /** adding a passkey needs a sign-in at most this old, so a stolen idle session cannot add one */
  recentSignInMs: 15 * MINUTE,
  nameMaxLength: 60,
  /** sign-in challenges one client address may ask for per window (each visit to /login asks for one) */
  signInOptionsPerWindow: 200,
  signInOptionsWindowMs: 15 * MINUTE,
  /** passkey sign-in answers per client address (counted before the check, given back on success) */
  signInTriesPerWindow: 30,
  /** registration challenges one user may ask for per window */
  registerOptionsPerWindow: 20,
  registerOptionsWindowMs: 15 * MINUTE,
} as const;

/**
 * The one answer (403, `ERROR_CODES.recentSignInRequired`) to a sensitive change from a session that signed
 * in more than `PASSKEY.recentSignInMs` ago: adding a passkey, a webhook URL, single sign-on, a SCIM token,
 * an API key. The features' own names for it (ACCOUNT_TEXT.passkeyNeedsRecentSignIn, WEBHOOK_TEXT.…) are this text.
 */
export const RECENT_SIGN_IN_TEXT =
  "For your security, this change needs a sign-in from the last 15 minutes. Sign out, sign in again, then try again.";

export const CHANGE_PASSWORD = {
  /** wrong current passwords one user may send per window */
  maxFailures: 5,
  failureWindowMs: 15 * MINUTE,
} as const;

/** The account page's and passkey sign-in's own texts. */
export const ACCOUNT_TEXT = {
  changePasswordFailed: "Failed to change password.",
  passwordChanged: "Your password has been changed. Every other session has been signed out.",
  wrongCurrentPassword: "Your current password is not correct.",
  samePassword: "Choose a new password that differs from the current one.",
  passkeyAdded: "Passkey added. You can now sign in with it.",
  passkeyRenamed: "Passkey renamed.",
  passkeyRemoved: "Passkey removed.",
  passkeyNotFound: "This passkey does not exist.",
  passkeyRegistrationFailed: "The passkey could not be added. Please try again.",
  passkeyAlreadyRegistered: "This passkey is already registered.",
  passkeyNeedsRecentSignIn: RECENT_SIGN_IN_TEXT,
  passkeySignInFailed: "Passkey sign-in failed. Try again, or sign in with your password.",
  passkeyUnknown: "This passkey is not registered with CallProof. Sign in with your password.",
  passkeyChallengeInvalid: "This passkey request has expired or was already used. Please try again.",
  passkeyCancelled: "Passkey sign-in was cancelled.",
  passkeyUnsupported: "This browser does not support passkeys.",
  otherSessionsEnded: (count: number) =>
    count === 0 ? "There were no other sessions." : `Signed out ${count} other session${count === 1 ? "" : "s"}.`,
  loadFailed: "Failed to load your account. Please try again.",
} as const;

export const USER_AGENT_MAX_LENGTH = 400;

/** A User-Agent as stored with a session: control and format characters dropped, bounded; null when empty. */
export function cleanUserAgent(userAgent: string | undefined): string | null {
  const clean = (userAgent ?? "").replace(/\p{C}/gu, "").trim().slice(0, USER_AGENT_MAX_LENGTH);
  return clean || null;
}

/** The most common browsers and systems, most specific first; anything else is named generically. */
const BROWSERS: Array<[RegExp, string]> = [
  [/Edg(e|A|iOS)?\//, "Edge"],
  [/OPR\/|Opera/, "Opera"],
  [/SamsungBrowser\//, "Samsung Internet"],
  [/Firefox\/|FxiOS\//, "Firefox"],
  [/Chrome\/|CriOS\/|Chromium\//, "Chrome"],
  [/Safari\//, "Safari"],
  [/curl\//, "curl"],
];
const SYSTEMS: Array<[RegExp, string]> = [
  [/iPhone|iPad|iPod/, "iOS"],
  [/Android/, "Android"],
  [/CrOS/, "ChromeOS"],
  [/Windows/, "Windows"],
  [/Mac OS X|Macintosh/, "macOS"],
  [/Linux/, "Linux"],
];

/** A short device name from a User-Agent: "Chrome on Windows", "Safari on iOS", "Unknown device". */
export function deviceLabel(userAgent: string | null | undefined): string {
  if (!userAgent) return "Unknown device";
  const browser = BROWSERS.find(([re]) => re.test(userAgent))?.[1];
  const system = SYSTEMS.find(([re]) => re.test(userAgent))?.[1];
  if (browser && system) return `${browser} on ${system}`;
  return browser ?? (system ? `Browser on ${system}` : "Unknown device");
}

/**
 * A password reset keeps the account's passkeys (they are keys on the person's own devices, not secrets that
 * could have leaked with the password), and says so on the reset page and in the reset mail.
 */
export const RESET_KEEPS_PASSKEYS =
  "Resetting your password does not remove your passkeys: they still sign you in. If you see a passkey you do not recognise, remove it on your Account page after signing in.";
