import type { Db } from "../db/client";
import { auditLog } from "../db/schema";

export type AuditEvent = {
  action: string;
  outcome: "success" | "failure" | "denied";
  actorId?: number | null;
  actorEmail?: string | null;
  organisationId?: number | null;
  target?: string | null;
  ip?: string | null;
  /** never secrets: no passwords, tokens, codes or words */
  detail?: Record<string, unknown>;
};

/** The append-only audit log: this module only ever inserts. */
export class AuditLog {
  constructor(
    private readonly db: Db,
    private readonly now: () => Date,
  ) {}

  async record(event: AuditEvent): Promise<void> {
    await this.db.insert(auditLog).values({
      at: this.now(),
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
}
