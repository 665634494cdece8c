import { z } from "zod";
import { SSO, SSO_TEXT } from "./sso-texts";

export * from "./sso-texts";

/** Single sign-on: the request and answer schemas (texts and limits in sso-texts.ts). */

const noControl = (s: string) => !/[\p{Cc}\p{Cf}]/u.test(s);

export const ssoBody = z.object({
  issuer: z
    .string({ error: SSO_TEXT.issuerInvalid })
    .trim()
    .min(1, SSO_TEXT.issuerInvalid)
    .max(SSO.issuerMax, SSO_TEXT.issuerTooLong)
    .refine(noControl, SSO_TEXT.issuerInvalid),
  clientId: z
    .string({ error: SSO_TEXT.clientIdInvalid })
    .trim()
    .min(1, SSO_TEXT.clientIdInvalid)
    .max(SSO.clientIdMax, SSO_TEXT.clientIdInvalid)
    .refine(noControl, SSO_TEXT.clientIdInvalid),
  clientSecret: z
    .string()
    .max(SSO.clientSecretMax, SSO_TEXT.clientSecretRequired)
    .refine(noControl, SSO_TEXT.clientSecretRequired)
    .optional(),
  enforced: z.boolean().optional(),
  jitProvisioning: z.boolean().optional(),
});
export type SsoBody = z.infer<typeof ssoBody>;

export const ssoAnswer = z
  .object({
    issuer: z.string(),
    clientId: z.string(),
    enforced: z.boolean(),
    jitProvisioning: z.boolean(),
    redirectUri: z.string(),
    secretHint: z.string(),
  })
  .nullable();
export type SsoAnswer = z.infer<typeof ssoAnswer>;

export const ssoOrganisationQuery = z.object({ organisationId: z.coerce.number().int().positive().optional() });

/** `?email=` of discover and start: bounded; anything else is simply "no SSO". */
export const ssoEmailQuery = z.object({ email: z.string().max(SSO.emailMax).default("") });

/**
 * POST /api/auth/sso/start: from CallProof's own /login page only (a POST with the CSRF token, so a link
 * or a form on another site cannot start one and sign the browser in as someone else).
 */
export const ssoStartBody = z.object({ email: z.string().max(SSO.emailMax) });
/** Where the page sends the browser: the identity provider, or /login with the reason it failed. */
export const ssoStartAnswer = z.object({ url: z.string() });
export type SsoStartAnswer = z.infer<typeof ssoStartAnswer>;

export const ssoDiscoverAnswer = z.union([
  z.object({ sso: z.literal(true), organisation: z.string(), enforced: z.boolean() }),
  z.object({ sso: z.literal(false) }),
]);
export type SsoDiscoverAnswer = z.infer<typeof ssoDiscoverAnswer>;

/** The callback's query: every parameter bounded (the provider's redirect carries them). */
export const ssoCallbackQuery = z.looseObject({
  code: z.string().max(4096).optional(),
  state: z.string().max(512).optional(),
  error: z.string().max(256).optional(),
  error_description: z.string().max(2048).optional(),
  iss: z.string().max(SSO.issuerMax).optional(),
});
