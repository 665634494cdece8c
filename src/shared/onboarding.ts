import { z } from "zod";
import { PASSWORD } from "./constants";
import { MESSAGES } from "./messages";
import { emailSchema, meetsPasswordRules, nameSchema, newPasswordSchema } from "./validation";

/** Texts of the sign-up flows (employer invitation, employer and employee registration). */
export const ONBOARDING_MESSAGES = {
  accessCodeRequired: "Access code is required.",
  invalidAccessCode: "Invalid or expired access code.",
  accessCodeFull: "This access code has reached its user limit.",
  validAccessCode: "Access code is valid.",
  wrongInvitationEmail: "The email address must be the one the invitation was sent to.",
  organisationExists: "An organisation with this email domain is already registered.",
  emailTaken: "An account with this email address already exists.",
  employeeWrongDomain: "Your email address must be at your employer's domain.",
  invalidWebsite: "Enter a valid website, for example https://www.example.com.",
  roleMustBeSuperuser: 'Role must be "superuser".',
  confirmPasswordRequired: "Please confirm your password.",
  registered: "Account created. Please follow the link sent to your email.",
} as const;

/** An access code as typed: required; case and separators do not matter (the server normalises). */
export const accessCodeSchema = z
  .string({ error: ONBOARDING_MESSAGES.accessCodeRequired })
  .trim()
  .min(1, ONBOARDING_MESSAGES.accessCodeRequired)
  .max(64, ONBOARDING_MESSAGES.invalidAccessCode);

/** A host name that looks like a public domain: dot-separated labels of letters, digits and hyphens, a letter TLD. */
const DOMAIN_RE = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

export function looksLikeDomain(value: string): boolean {
  return DOMAIN_RE.test(value);
}

/**
 * A website as typed ("example.com", "https://www.example.com/") turned into an https URL and its lower-case
 * host; null for anything that is not a plain http(s) web address (other schemes, credentials, IPs, garbage).
 */
export function normaliseWebsite(input: string): { url: string; host: string } | null {
  const raw = input.trim();
  if (!raw || raw.length > 2048 || /\s/.test(raw)) return null;
  let candidate: string;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) {
    if (!/^https?:\/\//i.test(raw)) return null;
    candidate = raw;
  } else {
    // "mailto:x", "javascript:x" and the like; "example.com:8080" (a port) is fine.
    if (/^[a-z][a-z0-9+.-]*:(?!\d+(?:[/?#]|$))/i.test(raw)) return null;
    candidate = `https://${raw}`;
  }
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return null;
  }
  if (url.username || url.password) return null;
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  if (!looksLikeDomain(host)) return null;
  const port = url.port && url.port !== "443" && url.port !== "80" ? `:${url.port}` : "";
  const pathname = url.pathname.replace(/\/+$/, "");
  return { url: `https://${host}${port}${pathname}`, host };
}

export const websiteSchema = z
  .string({ error: "Website is required." })
  .trim()
  .min(1, "Website is required.")
  .max(2048, ONBOARDING_MESSAGES.invalidWebsite)
  .refine((v) => normaliseWebsite(v) !== null, ONBOARDING_MESSAGES.invalidWebsite);

/** The e-mail domain (lower-case) of an address. */
export function emailDomain(email: string): string {
  return email.slice(email.lastIndexOf("@") + 1).toLowerCase();
}

// ---- employer invitation code ----

/** POST /api/employer/auth/validate-employer-access-code */
export const validateEmployerCodeBody = z.object({ code: accessCodeSchema });
export const validateEmployerCodeAnswer = z.object({ email: z.string() });

/**
 * The employer password checks in the specification's order: passwords match, then strength, then length.
 * Returns the first failing message or null. (The terms check comes after these, in the web form only.)
 */
export function employerPasswordProblem(password: string, confirmPassword: string): string | null {
  if (password !== confirmPassword) return MESSAGES.passwordsDoNotMatch;
  if (!meetsPasswordRules(password)) return MESSAGES.employerPasswordRules;
  if (password.length > PASSWORD.maxLength) return MESSAGES.passwordTooLong;
  return null;
}

/** POST /api/employer/auth/register-employer. The common-password check and invitation checks are server-side. */
export const registerEmployerBody = z
  .object({
    fullName: nameSchema("Full name"),
    companyName: nameSchema("Company name"),
    website: websiteSchema,
    email: emailSchema,
    password: z
      .string({ error: "Password is required." })
      .min(1, "Password is required.")
      .max(1024, MESSAGES.passwordTooLong),
    confirmPassword: z
      .string({ error: ONBOARDING_MESSAGES.confirmPasswordRequired })
      .max(1024, MESSAGES.passwordTooLong),
    role: z.literal("superuser", { error: ONBOARDING_MESSAGES.roleMustBeSuperuser }),
    accessCode: accessCodeSchema,
  })
  .superRefine((body, ctx) => {
    const problem = employerPasswordProblem(body.password, body.confirmPassword);
    if (problem) ctx.addIssue({ code: "custom", message: problem, path: ["password"] });
  });
export type RegisterEmployerBody = z.infer<typeof registerEmployerBody>;

// ---- employee access code ----

/** POST /api/auth/validate-access-code */
export const validateAccessCodeBody = z.object({ code: accessCodeSchema });
export const validateAccessCodeAnswer = z.object({
  companyDomain: z.string(),
  website: z.string(),
  message: z.string(),
});

/**
 * The employee password checks in the specification's order: strength, then match (the web form has the
 * confirm field; the API does not), then length. Returns the first failing message or null.
 */
export function employeePasswordProblem(password: string, confirmPassword = password): string | null {
  if (!meetsPasswordRules(password)) return MESSAGES.employeePasswordRules;
  if (password !== confirmPassword) return MESSAGES.passwordsDoNotMatch;
  if (password.length > PASSWORD.maxLength) return MESSAGES.passwordTooLong;
  return null;
}

/** POST /api/auth/register-employee. `website` is informational: the server uses the organisation's own. */
export const registerEmployeeBody = z.object({
  email: emailSchema,
  password: newPasswordSchema("employee"),
  fullName: nameSchema("Full name"),
  accessCode: accessCodeSchema,
  website: z.string().max(2048).optional(),
});
export type RegisterEmployeeBody = z.infer<typeof registerEmployeeBody>;

export const registeredAnswer = z.object({ message: z.string() });
