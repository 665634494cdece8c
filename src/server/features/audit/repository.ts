import type { Db } from "@server/db/client";
import { auditLog } from "@server/db/schema";
import { escapeLike } from "@server/lib/paging";
import type { AuditEntry } from "@shared/audit";
import { and, count, desc, eq, gte, inArray, like, lt, or, type SQL, sql } from "drizzle-orm";
import { aboutPersonSql } from "./maintenance";

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
  // At scale: the page's ids are found in an (…, at, id) index alone, skipping `offset` index entries
  // without reading their rows; only the page's own rows are then read.
  const pageIds = db
    .select({ id: auditLog.id })
    .from(auditLog)
    .where(where(filter))
    .orderBy(desc(auditLog.at), desc(auditLog.id))
    .limit(limit)
    .offset(offset);
  const rows = await db
    .select()
    .from(auditLog)
    .where(inArray(auditLog.id, pageIds))
    .orderBy(desc(auditLog.at), desc(auditLog.id));
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

/** Up to this many matching events are counted exactly; beyond it the planner's estimate is the total. */
export const EXACT_COUNT_LIMIT = 10_000;

/**
 * How many events match: exact up to EXACT_COUNT_LIMIT, above it PostgreSQL's estimate (the table's
 * statistics), so that the viewer's total never scans millions of rows.
 */
export async function countEvents(db: Db, filter: AuditFilter): Promise<number> {
  const condition = where(filter);
  const capped = db
    .select({ one: sql`1` })
    .from(auditLog)
    .where(condition)
    .limit(EXACT_COUNT_LIMIT + 1)
    .as("capped");
  const [row] = await db.select({ n: count() }).from(capped);
  const exact = row?.n ?? 0;
  if (exact <= EXACT_COUNT_LIMIT) return exact;
  const [explained] = await db.rows<{ "QUERY PLAN": unknown }>(
    sql`explain (format json) select 1 from ${auditLog} where ${condition ?? sql`true`}`,
  );
  const plan = explained?.["QUERY PLAN"];
  const parsed = (typeof plan === "string" ? JSON.parse(plan) : plan) as Array<{ Plan: { "Plan Rows": number } }>;
  return Math.max(EXACT_COUNT_LIMIT + 1, Math.round(parsed[0]?.Plan["Plan Rows"] ?? 0));
}

/** The audit events about a person (actor or target), oldest first, at most `limit` (the data export). */
export async function eventsAbout(db: Db, person: { id: number; email: string }, limit: number) {
  return db.select().from(auditLog).where(aboutPersonSql(person)).orderBy(auditLog.at, auditLog.id).limit(limit);
}
