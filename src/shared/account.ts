import { z } from "zod";
import { PASSKEY } from "./account-texts";
import { ROLES } from "./constants";
import { newPasswordSchema } from "./validation";

export * from "./account-texts";

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

/** GET /api/account/export: everything kept about the signed-in person (a JSON attachment). */
export const accountExportAnswer = z.object({
  exportedAt: z.string(),
  profile: z.object({
    id: z.number(),
    email: z.string(),
    fullName: z.string(),
    role: z.string(),
    status: z.string(),
    organisation: z.string().nullable(),
    emailVerifiedAt: z.string().nullable(),
  }),
  sessions: z.array(
    z.object({
      createdAt: z.string(),
      lastSeenAt: z.string(),
      expiresAt: z.string(),
      userAgent: z.string().nullable(),
      ip: z.string().nullable(),
    }),
  ),
  passkeys: z.array(
    z.object({
      id: z.number(),
      name: z.string(),
      createdAt: z.string(),
      lastUsedAt: z.string().nullable(),
      backedUp: z.boolean(),
    }),
  ),
  codes: z.array(
    z.object({
      id: z.number(),
      createdAt: z.string(),
      expiresAt: z.string(),
      status: z.enum(["live", "verified", "expired"]),
      verifiedAt: z.string().nullable(),
      site: z.string().nullable(),
    }),
  ),
  auditEvents: z.array(
    z.object({
      id: z.number(),
      at: z.string(),
      action: z.string(),
      outcome: z.string(),
      actorId: z.number().nullable(),
      organisationId: z.number().nullable(),
      target: z.string().nullable(),
      ip: z.string().nullable(),
      detail: z.record(z.string(), z.unknown()).nullable(),
    }),
  ),
});
