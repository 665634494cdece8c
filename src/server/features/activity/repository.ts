import type { Db } from "@server/db/client";
import { auditEventsSql, lookUpOriginHostSql } from "@server/features/audit";
import { organisationReportsSql } from "@server/features/reports";
import { hostUnderSql, verifiedSitesSql } from "@server/features/sites";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { sql } from "drizzle-orm";

type Counts = { day: string; generated: number; verified: number; failed_lookups: number; reports: number };

/**
 * Per UTC day since `from`, an organisation's codes generated and verified (from the audit log), failed
 * look-ups on its verified sites (look-ups whose Origin host is one of them or under one) and reports.
 * Days without any are absent.
 */
export async function dailyCounts(db: Db, organisationId: number, from: Date): Promise<Counts[]> {
  return db.rows<Counts>(sql`
    with sites as (select host from ${verifiedSitesSql(sql`${organisationId}::int`)} vs),
    codes as (
      select to_char(at at time zone 'UTC', 'YYYY-MM-DD') as day,
        count(*) filter (where action = ${AUDIT_ACTIONS.generateCode}) as generated,
        count(*) filter (where action = ${AUDIT_ACTIONS.verifyCode}) as verified
      from ${auditEventsSql({
        action: [AUDIT_ACTIONS.generateCode, AUDIT_ACTIONS.verifyCode],
        outcome: "success",
        since: from,
      })} e
      where organisation_id = ${organisationId}::int
      group by 1
    ),
    failed as (
      select to_char(a.at at time zone 'UTC', 'YYYY-MM-DD') as day, count(*) as failed_lookups
      from ${auditEventsSql({ action: AUDIT_ACTIONS.verifyCode, outcome: "failure", since: from })} a
      cross join lateral (select ${lookUpOriginHostSql(sql`a`)} as host) o
      where exists (select 1 from sites s where ${hostUnderSql(sql`o.host`, sql`s.host`)})
      group by 1
    ),
    reported as (
      select to_char(at at time zone 'UTC', 'YYYY-MM-DD') as day, count(*) as reports
      from ${organisationReportsSql(organisationId, from)} r
      group by 1
    ),
    days as (select day from codes union select day from failed union select day from reported)
    select days.day, coalesce(codes.generated, 0)::int as generated, coalesce(codes.verified, 0)::int as verified,
      coalesce(failed.failed_lookups, 0)::int as failed_lookups, coalesce(reported.reports, 0)::int as reports
    from days left join codes using (day) left join failed using (day) left join reported using (day)`);
}
