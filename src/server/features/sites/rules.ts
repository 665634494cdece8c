import { organisationSites } from "@server/db/schema";
import { hostUnderSql } from "@server/lib/origin";
import { type SQL, sql } from "drizzle-orm";

/**
 * The sites feature's rules as SQL fragments, for the statements of other features that must judge a site
 * inside their own statement (the code look-up, activity, alerts, reports, the admin's employer list), as
 * features/webhooks/outbox.ts does for deliveries and features/organisations/status.ts for "active":
 * - "the website is verified": a verified site of the organisation is its host or a parent of it;
 * - "this host is that site or under it": `hostUnderSql` (lib/origin.ts, with its TypeScript twins).
 * A site is verified when `status = 'verified'` (proved by DNS, the file, the e-mail domain or an admin);
 * `verifiedSitesSql` is the one place that says so.
 */

/**
 * The verified sites, as a relation `(organisation_id, host)` to select from or join (`… from
 * ${verifiedSitesSql()} s`); only one organisation's when `organisationId` (an SQL expression) is given.
 */
export function verifiedSitesSql(organisationId?: SQL): SQL {
  const only = organisationId === undefined ? sql`` : sql` and vs.organisation_id = ${organisationId}`;
  return sql`(select vs.organisation_id, vs.host from ${organisationSites} vs where vs.status = 'verified'${only})`;
}

/**
 * A condition: one of the verified sites of the organisation `organisationId` is the host `host` or a
 * parent of it ("the website is verified" when `host` is the organisation's website host).
 */
export function siteCoversSql(organisationId: SQL, host: SQL): SQL {
  return sql`exists (select 1 from ${verifiedSitesSql(organisationId)} s where ${hostUnderSql(host, sql`s.host`)})`;
}

/** A condition: the organisation's website (`websiteHost`) is verified (see `siteCoversSql`). */
export const websiteVerifiedSql = (organisationId: SQL, websiteHost: SQL): SQL =>
  siteCoversSql(organisationId, websiteHost);

/**
 * A condition: a verified site of the organisation is one of `hosts`, a comma-joined text of a host and its
 * parents (lib/origin.ts `siteScope`): the same rule as `siteCoversSql`, in the form an index answers.
 */
export function siteAmongSql(organisationId: SQL, hosts: SQL): SQL {
  return sql`exists (select 1 from ${verifiedSitesSql(organisationId)} s
    where s.host = any(string_to_array(${hosts}, ',')))`;
}
