import type { AUDIT_ACTIONS } from "./audit-actions";

/**
 * The `detail` of the audit events that another feature reads as an event stream, one shape per action.
 * They are written through the typed writers of features/audit (`auditDetail` in TypeScript,
 * `auditDetailSql` inside a statement) and read through its reader fragments (`auditDetailTextSql`,
 * `lookUpOriginHostSql`, `reportSiteSql`, `checkDeniedSql`): no other feature names a key of `detail`.
 * Other actions' details are free-form (shown in the audit log and the data export, read by nobody).
 */
export type AuditDetails = {
  /** A look-up of an identity code (the widget's, or /api/verify): written by features/codes. */
  [AUDIT_ACTIONS.verifyCode]: {
    /** the request's `Origin` header as sent (at most 255 characters), null when it had none */
    origin: string | null;
    /** why it did not verify, or `verified` */
    reason: string | null;
    /** the code's owner, when a code was found */
    ownerId: number | null;
    /** a refused look-up's count of refusals in a row */
    refused?: number | null;
  };
  /** A report of a suspicious call: written by features/reports, counted by alerts. */
  [AUDIT_ACTIONS.reportCall]: {
    /** the host of the page the report came from, when it had an Origin */
    site: string | null;
    /** who receives it */
    routed: "admins" | "organisation";
    /** set when the Origin named no verified site (nor the product itself) */
    unverifiedOrigin?: true;
    /** the id of an older report dropped to keep the destination within its budget */
    shed?: number;
  };
  /** A customer's answer to a check: written by features/calls, counted by alerts (denied-checks). */
  [AUDIT_ACTIONS.answerCheck]: {
    /** the check answered */
    checkId: string;
    /** the customer's answer */
    answer: "confirmed" | "denied";
  };
};

/** The actions whose `detail` has a fixed shape. */
export type TypedAuditAction = keyof AuditDetails;

/** The keys of each typed detail, in the order they are written. */
export const AUDIT_DETAIL_KEYS: { [A in TypedAuditAction]: readonly (keyof AuditDetails[A] & string)[] } = {
  "code.verify": ["origin", "reason", "ownerId", "refused"],
  "call.report": ["site", "routed", "unverifiedOrigin", "shed"],
  "call.check-answer": ["checkId", "answer"],
};
