/** Helpers for the onboarding, admin, employer and audit HTTP tests (not a test file itself). */

import { auditLog, organisations } from "@server/db/schema";
import { Browser, createUser, GOOD_PASSWORD, signIn, type TestApp, uniqueEmail } from "@test/helpers";
import { desc, eq } from "drizzle-orm";
import { seedSites } from "../sites/test-support";

let ipSeq = 0;
/** Headers that give a request its own client IP (the test app trusts X-Forwarded-For), so rate limits don't mix. */
export function freshIp(): Record<string, string> {
  ipSeq++;
  return { "x-forwarded-for": `10.${(ipSeq >> 16) & 255}.${(ipSeq >> 8) & 255}.${ipSeq & 255}` };
}

/** The test app's env: trust X-Forwarded-For so each test can use its own client IP. */
export const TRUST_PROXY_ENV = { TRUST_PROXY: "127.0.0.1" };

/** A signed-in platform admin. */
export async function signInAdmin(t: TestApp, email = uniqueEmail("callproof.test", "admin")) {
  const admin = await createUser(t, { email, role: "admin" });
  return { admin, browser: await signIn(t, admin.email) };
}

let orgSeq = 0;
/** An organisation with its superuser, straight in the database (active unless told otherwise). */
export async function createEmployer(
  t: TestApp,
  opts: {
    domain?: string;
    status?: "pending" | "active" | "deactivated";
    fullName?: string;
    companyName?: string;
    website?: string;
    verified?: boolean;
  } = {},
) {
  orgSeq++;
  const domain = opts.domain ?? `org${orgSeq}-${Math.random().toString(36).slice(2, 8)}.test`;
  const [org] = await t.database.db
    .insert(organisations)
    .values({
      companyName: opts.companyName ?? `Company ${orgSeq}`,
      domain,
      website: opts.website ?? `https://www.${domain}`,
      websiteHost: new URL(opts.website ?? `https://www.${domain}`).hostname,
      createdAt: t.clock.now(),
    })
    .returning();
  if (!org) throw new Error("organisation not created");
  await seedSites(t.database.db, org);
  const user = await createUser(t, {
    email: uniqueEmail(domain, "boss"),
    role: "superuser",
    status: opts.status ?? "active",
    fullName: opts.fullName ?? `Boss ${orgSeq}`,
    organisationId: org.id,
    verified: opts.verified,
  });
  return { org, user, domain };
}

/** An active, verified employee of an organisation, straight in the database. */
export function createEmployee(t: TestApp, organisationId: number, domain: string, fields: { fullName?: string } = {}) {
  return createUser(t, { email: uniqueEmail(domain, "staff"), role: "client", organisationId, ...fields });
}

/** Audit rows of an action, newest first. */
export function auditRows(t: TestApp, action: string) {
  return t.database.db.select().from(auditLog).where(eq(auditLog.action, action)).orderBy(desc(auditLog.id));
}

/** A browser with nobody signed in, from its own IP. */
export function anonymous(t: TestApp) {
  const browser = new Browser(t.app);
  const headers = freshIp();
  return {
    browser,
    headers,
    get: (url: string) => browser.get(url, headers),
    post: (url: string, body?: unknown) => browser.post(url, body, headers),
  };
}

export { GOOD_PASSWORD };
