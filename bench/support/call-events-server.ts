/**
 * The server half of the call events benchmark (bench/call-events.ts), in its own process like
 * success-server.ts: the whole product (TRUST_PROXY on, logging off) on PGlite on disk or a throwaway
 * PostgreSQL database, seeded with BENCH_ORGS organisations of BENCH_EMPLOYEES employees each (e-mail proved,
 * a signed-in session each: the dashboard's call stream is read with its cookie), each organisation with its
 * site verified (https://<domain>, the status tokens' origin) and API keys: 4 `calls:write` (the dialler),
 * 2 `checks:answer` (the organisation's app answering) and 1 `calls:read` (status tokens). A key may make 600
 * requests a minute and an organisation start 600 calls a minute, so the load is spread over organisations.
 * Prints `{"url", "orgs"}` once listening; SIGTERM closes it and drops its database.
 *   BENCH_ENGINE=pglite | postgres   (postgres needs BENCH_DATABASE_URL)
 */
import { randomBytes } from "node:crypto";
import { organisationSites, sessions, users } from "@server/db/schema";
import { randomToken, sha256 } from "@server/lib/crypto";
import { inArray } from "drizzle-orm";
import { benchApp, benchDatabase } from "./bench-app";
import { addKeys, seedOrganisation } from "./seed-organisation";

const ORGS = Number(process.env.BENCH_ORGS ?? 12);
const EMPLOYEES = Number(process.env.BENCH_EMPLOYEES ?? 300);
const { database, dataDir, dispose } = await benchDatabase("bench-call-events");
const { config, app } = await benchApp(database, dataDir);
const db = database.db;
const now = new Date();
const run = randomBytes(3).toString("hex");

export type EventsOrg = {
  origin: string;
  writers: string[];
  answerers: string[];
  reader: string;
  employees: Array<{ email: string; cookie: string }>;
};
const orgs: EventsOrg[] = [];
for (let n = 0; n < ORGS; n++) {
  const domain = `calls${n}-${run}.test`;
  const org = await seedOrganisation(database, config.appSecret, {
    companyName: `Bench Calls ${n}`,
    domain,
    employees: EMPLOYEES,
    keys: 0,
    now,
  });
  await db.insert(organisationSites).values({
    organisationId: org.id,
    host: domain,
    status: "verified",
    method: "email-domain",
    token: randomToken(16),
    verifiedAt: now,
    createdAt: now,
  });
  const owner = { organisationId: org.id, createdBy: org.bossId, now };
  const people = await db
    .select({ id: users.id, email: users.email })
    .from(users)
    .where(inArray(users.email, org.employees));
  const byEmail = new Map(people.map((p) => [p.email, p.id]));
  const tokens = org.employees.map(() => randomToken(32));
  await db.insert(sessions).values(
    org.employees.map((email, i) => ({
      tokenHash: sha256(tokens[i] as string),
      userId: byEmail.get(email) as number,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: new Date(now.getTime() + 12 * 3_600_000),
      userAgent: "bench",
      ip: "127.0.0.1",
    })),
  );
  orgs.push({
    origin: `https://${domain}`,
    writers: await addKeys(database, config.appSecret, owner, 4, ["calls:write"]),
    answerers: await addKeys(database, config.appSecret, owner, 2, ["checks:answer"]),
    reader: (await addKeys(database, config.appSecret, owner, 1, ["calls:read"]))[0] as string,
    employees: org.employees.map((email, i) => ({ email, cookie: `cp_session=${tokens[i]}` })),
  });
}

const url = await app.listen({ port: 0, host: "127.0.0.1" });
console.log(JSON.stringify({ url, orgs }));

process.on("SIGTERM", async () => {
  await app.close();
  await dispose();
  process.exit(0);
});
