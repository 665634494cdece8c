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
