import type { AuditAction } from "@shared/audit-actions";
import type { Db } from "../db/client";
import { auditLog } from "../db/schema";

export type AuditEvent = {
  action: AuditAction;
  outcome: "success" | "failure" | "denied";
  actorId?: number | null;
  actorEmail?: string | null;
  organisationId?: number | null;
  target?: string | null;
  ip?: string | null;
  /** never secrets: no passwords, tokens, codes or words */
  detail?: Record<string, unknown>;
};

/** Writes one audit entry of any action name at `at`; the app goes through AuditLog, which takes registered names only. */
export async function writeAuditEntry(db: Db, at: Date, event: Omit<AuditEvent, "action"> & { action: string }) {
  await db.insert(auditLog).values({
    at,
    action: event.action,
    outcome: event.outcome,
    actorId: event.actorId ?? null,
    actorEmail: event.actorEmail ?? null,
    organisationId: event.organisationId ?? null,
    target: event.target ?? null,
    ip: event.ip ?? null,
    detail: event.detail ?? null,
  });
}

/** A refusal's audit entry: its outcome is `failure` or `denied`. */
export type RefusalEvent = AuditEvent & { outcome: "failure" | "denied" };

/**
 * The one way a service refuses with an audit entry: records `event`, then throws `error` (an HttpError of
 * the feature's errors.ts). The entry is written before the answer, so a refusal is never lost to a throw.
 */
export async function refuse(
  deps: { audit: Pick<AuditLog, "record"> },
  event: RefusalEvent,
  error: Error,
): Promise<never> {
  await deps.audit.record(event);
  throw error;
}

/** The append-only audit log: this module only ever inserts. */
export class AuditLog {
  constructor(
    private readonly db: Db,
    private readonly now: () => Date,
  ) {}

  record(event: AuditEvent): Promise<void> {
    return writeAuditEntry(this.db, this.now(), event);
  }
}
