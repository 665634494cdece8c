import type { AuditAction } from "@shared/audit-actions";
import { AUDIT_DETAIL_KEYS, type AuditDetails, type TypedAuditAction } from "@shared/audit-events";
import { type SQL, sql } from "drizzle-orm";

/**
 * The typed audit events (src/shared/audit-events.ts): the one writer of their `detail` in TypeScript and
 * inside a statement, and the reader fragments other features' statements compose. No feature outside
 * this one names a key of `detail`.
 */

/** The `detail` of a typed event, checked against its shape (for `deps.audit.record`). */
export function auditDetail<A extends TypedAuditAction>(_action: A, detail: AuditDetails[A]): Record<string, unknown> {
  return detail as Record<string, unknown>;
}

/**
 * The `detail` of a typed event as a `jsonb` expression inside a statement: each member an SQL expression
 * (members left out are not written). `stripNulls` leaves out the members whose value is null (a failed
 * look-up's row stays as small as a plain audit insert's).
 */
export function auditDetailSql<A extends TypedAuditAction>(
  action: A,
  members: { [K in keyof AuditDetails[A]]?: SQL },
  opts: { stripNulls?: boolean } = {},
): SQL {
  const given = (AUDIT_DETAIL_KEYS[action] as readonly string[]).filter(
    (key) => (members as Record<string, SQL | undefined>)[key] !== undefined,
  );
  const pairs = sql.join(
    given.map((key) => sql`${sql.raw(`'${key}'`)}, ${(members as Record<string, SQL>)[key]}`),
    sql`, `,
  );
  const object = sql`jsonb_build_object(${pairs})`;
  return opts.stripNulls ? sql`jsonb_strip_nulls(${object})` : object;
}

/** A member of a typed event's `detail` as text, read from the audit row `row` (an alias, e.g. sql`a`). */
export function auditDetailTextSql<A extends TypedAuditAction>(
  row: SQL,
  _action: A,
  key: keyof AuditDetails[A] & string,
): SQL {
  return sql`${row}.detail->>${sql.raw(`'${key}'`)}`;
}

/** The lower-case host of a look-up's `Origin` (`code.verify`), or null. */
export function lookUpOriginHostSql(row: SQL): SQL {
  return sql`lower(substring(${auditDetailTextSql(row, "code.verify", "origin")} from '^https?://([^/:]+)'))`;
}

/** The site a report came from (`call.report`), or null. */
export function reportSiteSql(row: SQL): SQL {
  return auditDetailTextSql(row, "call.report", "site");
}

/** Whether a customer check's answer (`call.check-answer`) was a denial. */
export function checkDeniedSql(row: SQL): SQL {
  return sql`(${auditDetailTextSql(row, "call.check-answer", "answer")} = 'denied')`;
}

/**
 * The audit events of an action (or of any of several) and an outcome (within a time window when given), as a subquery that other
 * features' statements read from: `from ${auditEventsSql(...)} a`. Their columns: id, at, action, outcome,
 * actor_id, organisation_id, target, ip, detail (read `detail` through the readers above). The table stays
 * this feature's alone; PostgreSQL folds the subquery into the statement, so the index on (action, at)
 * serves it as it served the table named directly.
 */
export function auditEventsSql(f: {
  action: AuditAction | readonly AuditAction[];
  outcome: "success" | "failure" | "denied";
  /** at > after */
  after?: Date;
  /** at >= since */
  since?: Date;
  /** at <= until */
  until?: Date;
}): SQL {
  const window = [
    f.after && sql`and at > ${f.after.toISOString()}::timestamptz`,
    f.since && sql`and at >= ${f.since.toISOString()}::timestamptz`,
    f.until && sql`and at <= ${f.until.toISOString()}::timestamptz`,
  ].filter((part): part is SQL => part !== undefined);
  const action =
    typeof f.action === "string"
      ? sql`action = ${f.action}::text`
      : sql`action in (${sql.join(
          f.action.map((a) => sql`${a}::text`),
          sql`, `,
        )})`;
  return sql`(select id, at, action, outcome, actor_id, organisation_id, target, ip, detail from audit_log
    where ${action} and outcome = ${f.outcome}::text ${sql.join(window, sql` `)})`;
}
