import { z } from "zod";
import { organisationIdParam, pageNumber, pageOf } from "./paging";

export const AUDIT_PAGE_SIZE = 50;
/** Most rows one CSV export holds (newest first). */
export const AUDIT_CSV_MAX_ROWS = 50_000;

export const AUDIT_MESSAGES = {
  invalidDate: "Dates must be ISO 8601, for example 2025-01-31 or 2025-01-31T12:00:00Z.",
} as const;

const date = z
  .string()
  .trim()
  .refine(
    (v) => /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) && !Number.isNaN(Date.parse(v)),
    AUDIT_MESSAGES.invalidDate,
  );

/**
 * GET /api/admin/audit and /api/admin/audit.csv filters. `actor`: an e-mail (exact, any case);
 * `action`: an action ("admin.activate-account") or a prefix of dotted names ("admin");
 * `from` inclusive, `to` inclusive (a bare date covers that whole day, UTC).
 */
export const auditQuery = z.object({
  actor: z.string().trim().toLowerCase().max(254).optional(),
  action: z.string().trim().max(100).optional(),
  organisationId: organisationIdParam.optional(),
  from: date.optional(),
  to: date.optional(),
  page: pageNumber.optional(),
});
export type AuditQuery = z.infer<typeof auditQuery>;

/** GET /api/employer/audit: the caller's organisation only. */
export const employerAuditQuery = z.object({ page: pageNumber.optional() });

export const auditEntry = z.object({
  id: z.number(),
  /** ISO 8601 */
  at: z.string(),
  actorEmail: z.string().nullable(),
  action: z.string(),
  target: z.string().nullable(),
  organisationId: z.number().nullable(),
  ip: z.string().nullable(),
  outcome: z.string(),
  detail: z.record(z.string(), z.unknown()).nullable(),
});
export type AuditEntry = z.infer<typeof auditEntry>;

export const auditPage = pageOf(auditEntry);
