import { rowsOf } from "@server/db/client";
import { identityCodes, organisations, users } from "@server/db/schema";
import { IDENTITY_CODE } from "@shared/constants";
import { createUser, signIn, type TestApp } from "@test/helpers";
import { eq, sql } from "drizzle-orm";
import { seedSites } from "../sites/test-support";
import { codeHash } from "./service";
import { drawWords } from "./words";

let orgSeq = 0;

/** Inserts an organisation straight into the database (onboarding is another feature's work). */
export async function createOrganisation(
  t: Pick<TestApp, "database" | "clock">,
  fields: { domain?: string; website?: string; companyName?: string; websiteProved?: boolean } = {},
) {
  const n = ++orgSeq;
  const domain = fields.domain ?? `org${n}-${Date.now().toString(36)}.example`;
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

/** An active employee of a new organisation, signed in. */
export async function signedInEmployee(
  t: TestApp,
  org?: { domain?: string; website?: string; companyName?: string; websiteProved?: boolean },
  fullName = "Alice Caller",
) {
  const organisation = await createOrganisation(t, org);
  const user = await createUser(t, { organisationId: organisation.id, fullName });
  const browser = await signIn(t, user.email);
  return { organisation, user, browser };
}

/** A live code of a new employee of a new organisation, stored directly (no sign-in): its typed form. */
export async function employeeCode(
  t: TestApp,
  org?: { domain?: string; website?: string; companyName?: string; websiteProved?: boolean },
) {
  const organisation = await createOrganisation(t, org);
  const user = await createUser(t, { organisationId: organisation.id });
  return { organisation, user, typed: await storeCode(t, user.id) };
}

/** Stores a live code for a user as generate-words would, and returns its words joined by spaces. */
export async function storeCode(t: TestApp, userId: number, words = drawWords()) {
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
export async function generate(browser: Awaited<ReturnType<typeof signIn>>) {
  const res = await browser.post("/api/generate-words");
  if (res.statusCode !== 200) throw new Error(`generate-words: ${res.statusCode} ${res.body}`);
  return res.json() as { words: string[]; expiresAt: string };
}

let ipSeq = 0;
/** A client address of its own, so one test's look-ups do not share another's rate limit. */
export function freshIp() {
  ipSeq++;
  return `10.${(ipSeq >> 16) & 255}.${(ipSeq >> 8) & 255}.${ipSeq & 255}`;
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

/** Every row of a table as JSON text, for scanning what is stored. */
export async function tableText(t: Pick<TestApp, "database">, table: string) {
  const rows = rowsOf<{ j: string }>(
    await t.database.db.execute(sql.raw(`select row_to_json(x)::text as j from ${table} x`)),
  );
  return rows.map((r) => r.j).join("\n");
}
