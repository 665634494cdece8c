/** What other features use of proven sites: the sites a registration starts with, and a proved e-mail domain. */
import type { Feature } from "@server/features/feature";
import { sitesDeps } from "./deps";
import sitesRoutes from "./routes";
import { recheckSites } from "./service";

/** The sites rules other statements compose ("website verified", "this host is that site or under it"). */
export { hostUnderSql, originHost, type SiteScope, siteScope } from "@server/lib/origin";
export { isHostUnder } from "@shared/sites";
export { siteAmongSql, siteCoversSql, verifiedSitesSql, websiteVerifiedSql } from "./rules";

export { addRegistrationSites, emailDomainProved } from "./service";

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

export const sitesFeature: Feature = {
  name: "sites",
  purpose: "An organisation's proven sites (domain locking) and their daily re-check.",
  tables: ["organisation_sites"],
  routes: sitesRoutes,
  jobs: [
    {
      name: "site re-check",
      everyMs: HOUR_MS,
      firstAfterMs: MINUTE_MS,
      run: async (app) => {
        const lost = await recheckSites(sitesDeps(app));
        if (lost.length > 0) app.log.info({ hosts: lost }, "sites lost their proof");
      },
    },
  ],
};
