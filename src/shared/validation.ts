import { z } from "zod";
import { PASSWORD } from "./constants";
import { MESSAGES } from "./messages";

/**
 * Printable ASCII, with only ASCII white space around it: checked on the value as it came, before it is
 * trimmed or lower-cased, because both map other characters onto ASCII ones ("\u212A".toLowerCase() is
 * "k", and trim() drops a no-break space), which would let `\u212Aate@…` stand for `kate@…`.
 */
const ASCII_EMAIL_TEXT = /^[\t\n\r ]*[\x21-\x7e]*[\t\n\r ]*$/;

/** Whether a value, as it came, is an e-mail address's text in ASCII (see `emailSchema`). */
export const isAsciiEmailText = (value: string) => ASCII_EMAIL_TEXT.test(value);

/**
 * The one rule for every e-mail address from outside (sign-up and sign-in forms, password reset, ID tokens
 * and UserInfo, SCIM, the integration API): ASCII as it came, then trimmed, lower-cased and checked.
 */
export const emailSchema = z
  .string({ error: "Email is required." })
  .refine(isAsciiEmailText, "Enter a valid email address.")
  .trim()
  .toLowerCase()
  .min(1, "Email is required.")
  .max(254, "Email is too long.")
  .pipe(z.email("Enter a valid email address."));

/** `emailSchema` for a value of any type (a token's claim, a SCIM attribute): the address, or null. */
export function normaliseEmail(value: unknown): string | null {
  const parsed = emailSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** Any letter that is upper-case, in any script. */
const UPPER = /\p{Lu}/u;
/** A special character: neither letter, digit nor white space. */
const SPECIAL = /[^\p{L}\p{N}\s]/u;

/** The specification's password strength rule (8+ characters, an upper-case letter, a special character). */
export function meetsPasswordRules(password: string): boolean {
  return [...password].length >= PASSWORD.minLength && UPPER.test(password) && SPECIAL.test(password);
}

export type PasswordKind = "employer" | "employee";

/** The strength message the spec gives for each sign-up form; other screens use the employer wording. */
export function passwordRulesMessage(kind: PasswordKind): string {
  return kind === "employee" ? MESSAGES.employeePasswordRules : MESSAGES.employerPasswordRules;
}

/** Strength and length rules, shared by server and web forms. The common-password check is server-side. */
export function newPasswordSchema(kind: PasswordKind = "employer") {
  return z
    .string({ error: "Password is required." })
    .max(PASSWORD.maxLength, MESSAGES.passwordTooLong)
    .refine(meetsPasswordRules, passwordRulesMessage(kind));
}

/**
 * Control, format, surrogate, private-use and unassigned characters (newlines, bidi overrides (U+202E),
 * zero-width marks), and the line and paragraph separators U+2028 and U+2029 (categories Zl and Zp).
 */
const INVISIBLE_OR_CONTROL = /[\p{C}\p{Zl}\p{Zp}]/u;

/**
 * A person's or company's name: trimmed, 1 to 100 characters, and no character of Unicode category C,
 * so a name cannot hide or reorder text (a right-to-left override turning "Globex" around, a newline
 * starting a fake second line on a caller card).
 */
export function nameSchema(label: string) {
  return z
    .string({ error: `${label} is required.` })
    .trim()
    .min(1, `${label} is required.`)
    .max(100, `${label} must be at most 100 characters.`)
    .refine(
      (v) => !INVISIBLE_OR_CONTROL.test(v),
      `${label} must not contain control or invisible formatting characters.`,
    );
}
