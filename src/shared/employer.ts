import { z } from "zod";
import { MESSAGES } from "./messages";
import { organisationQuery, pageOf } from "./paging";

/** Texts of the employer dashboard's API. */
export const EMPLOYER_MESSAGES = {
  noOrganisation: "Your account is not linked to an organisation.",
  employeeNotFound: "No active employee of your organisation with that id.",
  employeeDeactivated: "Employee deactivated.",
  accessCodeUnreadable:
    "This access code cannot be shown: its stored copy does not open for your organisation. Generate a new one once it has expired or been used up.",
} as const;

/** Largest user limit of one employee access code. */
export const MAX_USERS_LIMIT = 10_000;

/** GET /api/employer/me */
export const employerProfile = z.object({ companyName: z.string(), email: z.string(), website: z.string() });

/** An employee in the employer's table. */
export const employeeRecord = z.object({
  id: z.number(),
  fullName: z.string(),
  email: z.string(),
  codesGenerated: z.number(),
  codesVerified: z.number(),
});
export type EmployeeRecord = z.infer<typeof employeeRecord>;

/** GET /api/employer/employees: the whole array, or one page with `?q=&page=` (q searches e-mail). */
export const employeesAnswer = z.union([z.array(employeeRecord), pageOf(employeeRecord)]);

/** Extra for an admin on GET /api/employer/employees: which organisation to list. */
export const employeesQueryExtra = organisationQuery;

/**
 * An employee access code as the dashboard shows it. `expiresAt` is ISO 8601. `code` is null when its stored
 * copy does not open for this organisation (sealed for another row, or under another APP_SECRET).
 */
export const accessCodeRecord = z.object({
  code: z.string().nullable(),
  maxUsers: z.number(),
  usedCount: z.number(),
  expiresAt: z.string(),
});
export type AccessCodeRecord = z.infer<typeof accessCodeRecord>;

/** GET /api/employer/access-codes: the newest code, or null. */
export const accessCodesAnswer = accessCodeRecord.nullable();

/** POST /api/employer/generate-access-code: maxUsers a whole number from 1 to 10,000. */
export const generateAccessCodeBody = z.object({
  maxUsers: z
    .number({ error: MESSAGES.invalidUserLimit })
    .int(MESSAGES.invalidUserLimit)
    .min(1, MESSAGES.invalidUserLimit)
    .max(MAX_USERS_LIMIT, MESSAGES.invalidUserLimit),
});

/** Whether a code still admits sign-ups at `now`. */
export function isCodeActive(
  code: { usedCount: number; maxUsers: number; expiresAt: string | Date },
  now = new Date(),
) {
  return code.usedCount < code.maxUsers && new Date(code.expiresAt).getTime() > now.getTime();
}
