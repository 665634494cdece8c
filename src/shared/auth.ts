import { z } from "zod";
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

export const messageAnswer = z.object({ message: z.string() });
