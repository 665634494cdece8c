import type { Db } from "@server/db/client";
import { auditLog } from "@server/db/schema";
import { escapeLike } from "@server/lib/paging";
import type { AuditEntry } from "@shared/audit";
import { and, count, desc, eq, gte, like, lt, or, type SQL } from "drizzle-orm";

export type AuditFilter = {
  actorEmail?: string;
  action?: string;
  organisationId?: number;
  from?: Date;
  /** exclusive */
  until?: Date;
};

function where(f: AuditFilter): SQL | undefined {
  return and(
    f.actorEmail ? eq(auditLog.actorEmail, f.actorEmail) : undefined,
    // An action, or every action under a dotted prefix ("admin" → "admin.*").
    f.action ? or(eq(auditLog.action, f.action), like(auditLog.action, `${escapeLike(f.action)}.%`)) : undefined,
    f.organisationId !== undefined ? eq(auditLog.organisationId, f.organisationId) : undefined,
    f.from ? gte(auditLog.at, f.from) : undefined,
    f.until ? lt(auditLog.at, f.until) : undefined,
  );
}

/** Audit events, newest first. Read-only: the audit log has no update or delete path anywhere. */
export async function listEvents(db: Db, filter: AuditFilter, limit: number, offset = 0): Promise<AuditEntry[]> {
  const rows = await db
    .select()
    .from(auditLog)
    .where(where(filter))
    .orderBy(desc(auditLog.at), desc(auditLog.id))
    .limit(limit)
    .offset(offset);
  return rows.map((r) => ({
    id: Number(r.id),
    at: r.at.toISOString(),
    actorEmail: r.actorEmail,
    action: r.action,
    target: r.target,
    organisationId: r.organisationId,
    ip: r.ip,
    outcome: r.outcome,
    detail: r.detail ?? null,
  }));
}

export async function countEvents(db: Db, filter: AuditFilter): Promise<number> {
  const [row] = await db.select({ n: count() }).from(auditLog).where(where(filter));
  return row?.n ?? 0;
}
