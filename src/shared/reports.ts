/**
 * Reported calls: what a customer may send after a failed look-up, and the texts around it. Kept free
 * of zod and other libraries: the widget imports it (schemas are in reports-schemas.ts).
 */

/** The longest text of each field of a report. */
export const REPORT_FIELD_MAX = 500;

/** Reports per client IP per hour. */
export const REPORTS_PER_HOUR = 5;

export type ReportBody = { callerNumber?: string; claimedName?: string; note?: string };

/** `GET /api/employer/reports` and `GET /api/admin/reports` items. */
export type CallReport = {
  id: number;
  at: string;
  site: string | null;
  /** the Origin was missing, or neither CallProof's own nor an https site an organisation proved */
  unverifiedOrigin: boolean;
  callerNumber: string | null;
  claimedName: string | null;
  note: string | null;
};

export const REPORT_FIELDS = {
  callerNumber: "The number that called you",
  claimedName: "The name the caller gave",
  note: "What they asked for",
} as const;

/** The widget's report form (kept small: the widget carries it), and the answers the server gives it. */
export const REPORT_FORM_TEXT = {
  reportButton: "Report this call",
  formHint: "Tell the organisation about the call. Every field is optional, but fill in at least one.",
  send: "Send report",
  sending: "Sending...",
  cancel: "Cancel",
  sent: "Thank you. Your report has been received.",
  failed: "The report could not be sent. Please try again later.",
  empty: "Fill in at least one field.",
  tooMany: "Too many reports from your network. Please try again later.",
} as const;

export const REPORTS_TEXT = {
  tooLong: (label: string) => `${label}: at most ${REPORT_FIELD_MAX} characters.`,
  controlCharacters: (label: string) => `${label}: remove the control characters.`,
  // dashboards
  employerTitle: "Reported calls",
  adminTitle: "Reported calls that reached no organisation",
  employerIntro: "Customers who could not verify a caller on your website reported these calls. Newest first.",
  adminIntro:
    'Reports sent from CallProof\'s own site or from a site no organisation has proved. Newest first. Those marked "unverified origin" came without an Origin or from a site no organisation proved: they may be forged.',
  searchLabel: "Search by number",
  none: "No reported calls.",
  export: "Download CSV",
  columns: {
    at: "When",
    site: "Site",
    origin: "Origin",
    callerNumber: "Number",
    claimedName: "Name given",
    note: "Asked for",
  },
  unverifiedOrigin: "unverified origin",
  verifiedOrigin: "verified",
  unverifiedOriginHint:
    "Unverified origin: the report did not come from CallProof's own site nor from a site an organisation proved (it may be forged).",
  loadFailed: "Failed to load the reported calls. Please try again.",
} as const;

/** A report's number reduced to its digits, for searching "+44 20 7946 0000" as "2079460000". */
export function digitsOf(text: string): string {
  return text.replace(/\D/g, "");
}
