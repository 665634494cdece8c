/** What other features use of proven sites: the sites a registration starts with, and a proved e-mail domain. */

/** The sites rules other statements compose ("website verified", "this host is that site or under it"). */
export { hostUnderSql, originHost, type SiteScope, siteScope } from "@server/lib/origin";
export { isHostUnder } from "@shared/sites";
export { siteAmongSql, siteCoversSql, verifiedSitesSql, websiteVerifiedSql } from "./rules";
export { addRegistrationSites, emailDomainProved } from "./service";
