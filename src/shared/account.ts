import { z } from "zod";
import { ROLES } from "./constants";
import { newPasswordSchema } from "./validation";

const MINUTE = 60_000;

export const PASSKEY = {
  /** a WebAuthn challenge is single use and lives this long */
  challengeLifetimeMs: 5 * MINUTE,
  /** adding a passkey needs a sign-in at most this old, so a stolen idle session cannot add one */
  recentSignInMs: 15 * MINUTE,
  nameMaxLength: 60,
  /** sign-in challenges one client address may ask for per window */
  signInOptionsPerWindow: 60,
  signInOptionsWindowMs: 15 * MINUTE,
  /** registration challenges one user may ask for per window */
  registerOptionsPerWindow: 20,
  registerOptionsWindowMs: 15 * MINUTE,
} as const;

export const CHANGE_PASSWORD = {
  /** wrong current passwords one user may send per window */
  maxFailures: 5,
  failureWindowMs: 15 * MINUTE,
} as const;

/** The account page's and passkey sign-in's own texts. */
export const ACCOUNT_TEXT = {
  passwordChanged: "Your password has been changed. Every other session has been signed out.",
  wrongCurrentPassword: "Your current password is not correct.",
  samePassword: "Choose a new password that differs from the current one.",
  passkeyAdded: "Passkey added. You can now sign in with it.",
  passkeyRenamed: "Passkey renamed.",
  passkeyRemoved: "Passkey removed.",
  passkeyNotFound: "This passkey does not exist.",
  passkeyRegistrationFailed: "The passkey could not be added. Please try again.",
  passkeyAlreadyRegistered: "This passkey is already registered.",
  passkeyNeedsRecentSignIn: "For your security, sign in again before adding a passkey.",
  passkeySignInFailed: "Passkey sign-in failed. Try again, or sign in with your password.",
  passkeyUnknown: "This passkey is not registered with CallProof. Sign in with your password.",
  passkeyChallengeInvalid: "This passkey request has expired or was already used. Please try again.",
  passkeyCancelled: "Passkey sign-in was cancelled.",
  passkeyUnsupported: "This browser does not support passkeys.",
  otherSessionsEnded: (count: number) =>
    count === 0 ? "There were no other sessions." : `Signed out ${count} other session${count === 1 ? "" : "s"}.`,
  loadFailed: "Failed to load your account. Please try again.",
} as const;

/** No control or format characters (Unicode category C, bidi overrides included). */
const NO_CONTROL = /^[^\p{C}]*$/u;

export const passkeyNameSchema = z
  .string({ error: "Name is required." })
  .trim()
  .min(1, "Name is required.")
  .max(PASSKEY.nameMaxLength, `Name must be at most ${PASSKEY.nameMaxLength} characters.`)
  .regex(NO_CONTROL, "Name must not contain control characters.");

export const changePasswordBody = z.object({
  currentPassword: z
    .string({ error: "Current password is required." })
    .min(1, "Current password is required.")
    .max(1024, "Password is too long."),
  newPassword: newPasswordSchema("employer"),
});

export const renamePasskeyBody = z.object({ name: passkeyNameSchema });

export const passkeyParams = z.object({
  id: z.coerce.number({ error: "Unknown passkey." }).int().positive().max(2_147_483_647),
});

/**
 * A WebAuthn response as @simplewebauthn/browser sends it. Only its shape and sizes are checked
 * here; the server's WebAuthn library checks the content.
 */
const b64url = (max: number) =>
  z
    .string()
    .max(max)
    .regex(/^[A-Za-z0-9_-]*$/, "Expected base64url.");

export const registrationResponseSchema = z.object({
  id: b64url(1024),
  rawId: b64url(1024),
  type: z.literal("public-key"),
  response: z.object({
    clientDataJSON: b64url(4096),
    attestationObject: b64url(16_384),
    authenticatorData: b64url(16_384).optional(),
    transports: z.array(z.string().max(32)).max(10).optional(),
    publicKeyAlgorithm: z.number().int().optional(),
    publicKey: b64url(4096).optional(),
  }),
  authenticatorAttachment: z.enum(["platform", "cross-platform"]).optional(),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
});

export const authenticationResponseSchema = z.object({
  id: b64url(1024),
  rawId: b64url(1024),
  type: z.literal("public-key"),
  response: z.object({
    clientDataJSON: b64url(4096),
    authenticatorData: b64url(16_384),
    signature: b64url(2048),
    userHandle: b64url(512).optional(),
  }),
  authenticatorAttachment: z.enum(["platform", "cross-platform"]).optional(),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
});

export const addPasskeyBody = z.object({
  response: registrationResponseSchema,
  name: passkeyNameSchema.optional(),
});

export const passkeySignInBody = z.object({ response: authenticationResponseSchema });

export const passkeyAnswer = z.object({
  id: z.number(),
  name: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
});

export const sessionAnswer = z.object({
  id: z.number(),
  current: z.boolean(),
  createdAt: z.string(),
  lastSeenAt: z.string(),
  userAgent: z.string().nullable(),
  ip: z.string().nullable(),
});

export const accountAnswer = z.object({
  email: z.string(),
  fullName: z.string(),
  role: z.enum(ROLES),
  /** the organisation's company name, or null for an account without one */
  organisation: z.string().nullable(),
  passkeys: z.array(passkeyAnswer),
  sessions: z.array(sessionAnswer),
});

export type AccountAnswer = z.infer<typeof accountAnswer>;
export type PasskeyAnswer = z.infer<typeof passkeyAnswer>;
export type SessionAnswer = z.infer<typeof sessionAnswer>;

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
