/** Test data and requests shared by the server's HTTP tests and the browser tests (not a test file itself). */

import { randomBytes } from "node:crypto";
import type { Db } from "@server/db/client";
import { auditLog, identityCodes, organisationSites, organisations, users } from "@server/db/schema";
import { codeHash } from "@server/features/codes/service";
import { drawWords } from "@server/features/codes/words";
import { type AuditEvent, writeAuditEntry } from "@server/lib/audit";
import { IDENTITY_CODE } from "@shared/constants";
import { isHostUnder } from "@shared/sites";
import { desc, eq, sql } from "drizzle-orm";
import { Browser, createUser, GOOD_PASSWORD, signedIn, type TestApp, uniqueEmail } from "./helpers";

export { GOOD_PASSWORD };

/** The test app's env: trust X-Forwarded-For so each test can use its own client IP. */
export const TRUST_PROXY_ENV = { TRUST_PROXY: "127.0.0.1" };

let ipSeq = 0;
/** A client address of its own, so one test's rate limits do not touch another's. */
export function freshIp(): string {
  ipSeq++;
  return `10.${(ipSeq >> 16) & 255}.${(ipSeq >> 8) & 255}.${ipSeq & 255}`;
}

/** Headers that give a request its own client IP (for an app that trusts X-Forwarded-For). */
export function freshIpHeaders(): Record<string, string> {
  return { "x-forwarded-for": freshIp() };
}

let orgSeq = 0;

type OrganisationFields = { domain?: string; website?: string; companyName?: string; websiteProved?: boolean };

/** Inserts an organisation straight into the database, with its sites (see seedSites). */
export async function createOrganisation(t: Pick<TestApp, "database" | "clock">, fields: OrganisationFields = {}) {
  const n = ++orgSeq;
  const domain = fields.domain ?? `org${n}-${Math.random().toString(36).slice(2, 8)}.test`;
  const website = fields.website ?? `https://www.${domain}`;
  const [org] = await t.database.db
    .insert(organisations)
    .values({
      companyName: fields.companyName ?? `Company ${n}`,
      domain,
      website,
      websiteHost: new URL(website).hostname,
      createdAt: t.clock.now(),
    })
    .returning();
  if (!org) throw new Error("organisation not created");
  await seedSites(t.database.db, org, { websiteProved: fields.websiteProved });
  return org;
}

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

/** An organisation with its superuser, straight in the database (active unless told otherwise). */
export async function createEmployer(
  t: Pick<TestApp, "database" | "clock">,
  opts: {
    domain?: string;
    status?: "pending" | "active" | "deactivated";
    fullName?: string;
    companyName?: string;
    website?: string;
    verified?: boolean;
  } = {},
) {
  const org = await createOrganisation(t, opts);
  const user = await createUser(t, {
    email: uniqueEmail(org.domain, "boss"),
    role: "superuser",
    status: opts.status ?? "active",
    fullName: opts.fullName ?? `Boss ${org.id}`,
    organisationId: org.id,
    verified: opts.verified,
  });
  return { org, user, domain: org.domain };
}

/** An active, verified employee of an organisation, straight in the database. */
export function createEmployee(
  t: Pick<TestApp, "database" | "clock">,
  organisationId: number,
  domain: string,
  fields: { fullName?: string } = {},
) {
  return createUser(t, { email: uniqueEmail(domain, "staff"), role: "client", organisationId, ...fields });
}

/** A signed-in platform admin (the session started directly: signedIn). */
export async function signInAdmin(t: TestApp, email = uniqueEmail("callproof.test", "admin")) {
  const admin = await createUser(t, { email, role: "admin" });
  return { admin, browser: await signedIn(t, admin) };
}

/** An active employee of a new organisation, signed in (the session started directly: signedIn). */
export async function signedInEmployee(t: TestApp, org?: OrganisationFields, fullName = "Alice Caller") {
  const organisation = await createOrganisation(t, org);
  const user = await createUser(t, { organisationId: organisation.id, fullName });
  const browser = await signedIn(t, user);
  return { organisation, user, browser };
}

/** A browser with nobody signed in, from its own IP. */
export function anonymous(t: TestApp) {
  const browser = new Browser(t.app);
  const headers = freshIpHeaders();
  return {
    browser,
    headers,
    get: (url: string) => browser.get(url, headers),
    post: (url: string, body?: unknown) => browser.post(url, body, headers),
  };
}

// ---- identity codes ----

/** A live code of a new employee of a new organisation, stored directly (no sign-in): its typed form. */
export async function employeeCode(t: TestApp, org?: OrganisationFields) {
  const organisation = await createOrganisation(t, org);
  const user = await createUser(t, { organisationId: organisation.id });
  return { organisation, user, typed: await storeCode(t, user.id) };
}

/** Stores a live code for a user as generate-words would, and returns its words joined by spaces. */
export async function storeCode(
  t: Pick<TestApp, "database" | "clock" | "config">,
  userId: number,
  words = drawWords(),
) {
  const now = t.clock.now();
  await t.database.db.insert(identityCodes).values({
    userId,
    codeHash: codeHash(t.config.appSecret, words),
    createdAt: now,
    expiresAt: new Date(now.getTime() + IDENTITY_CODE.lifetimeMs),
  });
  return words.join(" ");
}

/** POSTs /api/generate-words for a signed-in browser and returns the words. */
export async function generate(browser: Browser) {
  const res = await browser.post("/api/generate-words");
  if (res.statusCode !== 200) throw new Error(`generate-words: ${res.statusCode} ${res.body}`);
  return res.json() as { id: number; words: string[]; expiresAt: string };
}

/** A widget look-up as a third-party page makes it: no cookies, maybe an Origin. */
export function verify(
  t: Pick<TestApp, "app">,
  words: unknown,
  opts: { origin?: string; ip?: string; headers?: Record<string, string> } = {},
) {
  return t.app.inject({
    method: "POST",
    url: "/api/verify",
    remoteAddress: opts.ip ?? freshIp(),
    headers: { "content-type": "application/json", ...(opts.origin ? { origin: opts.origin } : {}), ...opts.headers },
    payload: JSON.stringify(typeof words === "string" ? { words } : words),
  });
}

export async function counters(t: Pick<TestApp, "database">, userId: number) {
  const [row] = await t.database.db
    .select({ generated: users.codesGenerated, verified: users.codesVerified })
    .from(users)
    .where(eq(users.id, userId));
  return row;
}

// ---- what is stored ----

/** Every row of a table as JSON text, for scanning what is stored. */
export async function tableText(t: Pick<TestApp, "database">, table: string) {
  const rows = await t.database.db.rows<{ j: string }>(sql.raw(`select row_to_json(x)::text as j from ${table} x`));
  return rows.map((r) => r.j).join("\n");
}

/** Audit rows of an action, newest first. */
export function auditRows(t: TestApp, action: string) {
  return t.database.db.select().from(auditLog).where(eq(auditLog.action, action)).orderBy(desc(auditLog.id));
}

/** Writes an audit entry of any action name (the app records only registered ones), at the test clock's time. */
export function insertAuditEntry(
  t: Pick<TestApp, "database" | "clock">,
  event: Omit<AuditEvent, "action"> & { action: string },
) {
  return writeAuditEntry(t.database.db, t.clock.now(), event);
}
