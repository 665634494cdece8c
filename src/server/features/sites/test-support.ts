/** Helpers for tests that need organisation sites (not a test file itself). */

import { randomBytes } from "node:crypto";
import type { Db } from "@server/db/client";
import { organisationSites } from "@server/db/schema";
import { isHostUnder } from "@shared/sites";

/**
 * The sites an organisation of a test starts with, as an organisation with a verified e-mail has them:
 * its e-mail domain verified, its website verified when at or under that domain and pending otherwise
 * (verified too with `websiteProved`, as if proved by DNS).
 */
export async function seedSites(
  db: Db,
  org: { id: number; domain: string; websiteHost: string; createdAt: Date },
  opts: { websiteProved?: boolean } = {},
) {
  const site = (host: string, method: "email-domain" | "dns" | null) => ({
    organisationId: org.id,
    host,
    status: method ? ("verified" as const) : ("pending" as const),
    method,
    token: randomBytes(16).toString("hex"),
    verifiedAt: method ? org.createdAt : null,
    createdAt: org.createdAt,
  });
  const rows = [site(org.domain, "email-domain")];
  if (org.websiteHost !== org.domain) {
    const underDomain = isHostUnder(org.websiteHost, org.domain);
    rows.push(site(org.websiteHost, underDomain ? "email-domain" : opts.websiteProved ? "dns" : null));
  }
  await db.insert(organisationSites).values(rows);
}
