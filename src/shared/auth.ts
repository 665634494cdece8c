import { z } from "zod";
import { ROLES } from "./constants";
import { emailSchema, newPasswordSchema } from "./validation";

export const loginBody = z.object({
  email: emailSchema,
  password: z
    .string({ error: "Password is required." })
    .min(1, "Password is required.")
    .max(1024, "Password is too long."),
});

export const verify2faBody = z.object({
  email: emailSchema,
  code: z
    .string({ error: "Enter the 6-digit code from your email." })
    .trim()
    .regex(/^\d{6}$/, "Enter the 6-digit code from your email."),
});

export const forgotPasswordBody = z.object({ email: emailSchema });

/** `POST /api/auth/resend-verification` */
export const resendVerificationBody = z.object({ email: emailSchema });

export const resetPasswordBody = z.object({
  token: z
    .string({ error: "The reset link is missing its token." })
    .min(1, "The reset link is missing its token.")
    .max(200),
  newPassword: newPasswordSchema("employer"),
});

export const verifyEmailBody = z.object({
  email: emailSchema,
  token: z.string({ error: "The verification link is missing its token." }).min(1).max(200),
});

const role = z.enum(ROLES);

/** GET /api/auth/whoami and POST /api/auth/verify-2fa: the signed-in user's role. */
export const roleAnswer = z.object({ role });

/** POST /api/auth/verify-email: the account's role, and whether it still awaits activation. */
export const verifyEmailAnswer = z.object({ role, pending: z.boolean() });

/**
 * GET /api/public-config. `callStatusScript`: the call-status component as the organisation embeds it
 * (PUBLIC_URL/call-status.<hash>.js and its SRI hash), null when the build has none.
 */
export const publicConfigAnswer = z.object({
  supportEmail: z.string(),
  callStatusScript: z.object({ src: z.string(), integrity: z.string() }).nullable(),
});
