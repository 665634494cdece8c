/**
 * The server half of the calls benchmark (bench/calls.ts), in its own process like verify-server.ts: the
 * whole product (TRUST_PROXY on, logging off) on PGlite on disk or a fresh PostgreSQL database, seeded with
 * the verify benchmark's codes and an organisation (https://www.bank.example) with employees, their signed-in
 * sessions and three API keys (calls:read, calls:write, calls:read + checks:answer). Prints
 * `{"url", "origin", "keys", "employees"}` once listening; SIGTERM closes it (and drops its database).
 *   BENCH_ENGINE=pglite | postgres   (postgres needs BENCH_DATABASE_URL)
 */
import { organisationSites, organisations, sessions, users } from "@server/db/schema";
import { randomToken, sha256 } from "@server/lib/crypto";
import type { ApiKeyScope } from "@shared/api-keys";
import { benchApp, benchDatabase } from "./bench-app";
import { seedBench } from "./naive-verify";
import { addKeys } from "./seed-organisation";

const EMPLOYEES = Number(process.env.BENCH_EMPLOYEES ?? 400);
const { engine, database, dataDir, dispose } = await benchDatabase("bench-calls");

const { config, app } = await benchApp(database, dataDir);
await seedBench(database);

const now = new Date();
const db = database.db;
const [org] = await db
  .insert(organisations)
  .values({
    companyName: "Globex",
    domain: "bank.example",
    website: "https://www.bank.example",
    websiteHost: "www.bank.example",
    createdAt: now,
  })
  .returning();
if (!org) throw new Error("organisation not created");
await db.insert(organisationSites).values(
  ["bank.example", "www.bank.example"].map((host) => ({
    organisationId: org.id,
    host,
    status: "verified" as const,
    method: "email-domain" as const,
    token: randomToken(16),
    verifiedAt: now,
    createdAt: now,
  })),
);
const [boss] = await db
  .insert(users)
  .values({
    email: "boss@bank.example",
    fullName: "Bench Boss",
    passwordHash: "x",
    role: "superuser",
    status: "active",
    organisationId: org.id,
    emailVerifiedAt: now,
    createdAt: now,
  })
  .returning();
if (!boss) throw new Error("superuser not created");

const staff = await db
  .insert(users)
  .values(
    Array.from({ length: EMPLOYEES }, (_, i) => ({
      email: `agent${i}@bank.example`,
      fullName: `Agent${i} Bench`,
      passwordHash: "x",
      role: "client" as const,
      status: "active" as const,
      organisationId: org.id,
      emailVerifiedAt: now,
      createdAt: now,
    })),
  )
  .returning({ id: users.id, email: users.email });

// A signed-in session per employee: the dashboard's event stream is read with its cookie.
const employees: Array<{ id: number; email: string; cookie: string }> = [];
for (const person of staff) {
  const token = randomToken(32);
  await db.insert(sessions).values({
    tokenHash: sha256(token),
    userId: person.id,
    createdAt: now,
    lastSeenAt: now,
    expiresAt: new Date(now.getTime() + 12 * 3_600_000),
    userAgent: "bench",
    ip: "127.0.0.1",
    viaSso: false,
  });
  employees.push({ ...person, cookie: `cp_session=${token}` });
}

/** `count` keys of the organisation with `scopes`, made by its superuser (support/seed-organisation.ts). */
const newKeys = (organisationId: number, count: number, scopes: ApiKeyScope[]) =>
  addKeys(database, config.appSecret, { organisationId, createdBy: boss.id, now }, count, scopes);
/**
 * An API key may make 600 requests a minute: the throughput run spreads its look-ups over 300 calls:read keys
 * (10 of this organisation's and 58 of each of 5 more organisations'), so that at 2,500 a second, with
 * call-status running about 22 s of any minute, each key makes about 180 (a busy integration's key, none
 * refused: a refused call is not the path measured). Each key keeps its hits of the last minute in its row
 * (decision 002), so a key near its limit pays for a longer row. The latency runs rotate over 5 dialler keys.
 */
const load: string[] = [];
load.push(...(await newKeys(org.id, 10, ["calls:read"])));
for (let n = 0; n < 5; n++) {
  const [other] = await db
    .insert(organisations)
    .values({
      companyName: `Other ${n}`,
      domain: `other${n}.example`,
      website: `https://other${n}.example`,
      websiteHost: `other${n}.example`,
      createdAt: now,
    })
    .returning();
  load.push(...(await newKeys(other!.id, 58, ["calls:read"])));
}
const diallers = await newKeys(org.id, 5, ["calls:write"]);
const keys = {
  reader: (await newKeys(org.id, 1, ["calls:read"]))[0] as string,
  answerer: (await newKeys(org.id, 1, ["calls:read", "checks:answer"]))[0] as string,
  diallers,
  load,
};

const url = await app.listen({ port: 0, host: "127.0.0.1" });
console.log(JSON.stringify({ url, engine, origin: "https://www.bank.example", keys, employees }));

process.on("SIGTERM", async () => {
  await app.close();
  await dispose();
  process.exit(0);
});
