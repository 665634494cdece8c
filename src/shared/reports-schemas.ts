import { z } from "zod";
import { listQuery, organisationQuery, pageOf } from "./paging";
import { REPORT_FIELD_MAX, REPORT_FIELDS, REPORT_FORM_TEXT, REPORTS_TEXT } from "./reports";

const NO_CONTROL = /^[^\p{C}]*$/u;

/** One optional field of a report: trimmed, blank as absent, bounded, no control or format characters. */
function reportField(label: string) {
  return z
    .string()
    .max(REPORT_FIELD_MAX * 4, REPORTS_TEXT.tooLong(label))
    .trim()
    .max(REPORT_FIELD_MAX, REPORTS_TEXT.tooLong(label))
    .regex(NO_CONTROL, REPORTS_TEXT.controlCharacters(label))
    .optional()
    .transform((v) => (v ? v : undefined));
}

/** `POST /api/reports`: at least one field. */
export const reportBody = z
  .object({
    callerNumber: reportField(REPORT_FIELDS.callerNumber),
    claimedName: reportField(REPORT_FIELDS.claimedName),
    note: reportField(REPORT_FIELDS.note),
    /** the widget's language (en, fr, es, it, pt, cs): the answer's texts are in it; anything else reads as English */
    language: z.string().max(35).optional(),
  })
  .refine((r) => r.callerNumber || r.claimedName || r.note, { message: REPORT_FORM_TEXT.empty });

export const callReport = z.object({
  id: z.number(),
  at: z.string(),
  site: z.string().nullable(),
  unverifiedOrigin: z.boolean(),
  callerNumber: z.string().nullable(),
  claimedName: z.string().nullable(),
  note: z.string().nullable(),
});

export const reportsPage = pageOf(callReport);

/** `?q=&page=` (q: a number, or part of one) and the admin's `?organisationId=`. */
export const reportsQuery = listQuery.extend(organisationQuery.shape);
