import { hmac, normaliseAccessCode } from "./crypto";

/** The stored form of an employer invitation code: an HMAC of its normalised text. */
export const invitationHash = (secret: string, code: string) =>
  hmac(secret, "employer-invitation", normaliseAccessCode(code));

/** The stored form of an employee access code (issued by the employer feature, used at employee sign-up). */
export const accessCodeHash = (secret: string, code: string) =>
  hmac(secret, "employee-access-code", normaliseAccessCode(code));
