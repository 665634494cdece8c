/**
 * The server half of the successful look-ups benchmark (bench/verify-success.ts), in its own process so
 * the load generator does not share its event loop: the whole product (TRUST_PROXY on, logging off) on
 * PGlite on disk or a throwaway PostgreSQL database, seeded with one organisation, EMPLOYEES employees
 * (e-mail proved) and API keys (every scope). Prints `{"url", "keys", "employees"}` once listening;
 * SIGTERM closes it and drops its database.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Database, openDatabase } from "@server/db/client";
import { apiKeys, organisations, users } from "@server/db/schema";
import { hmac, randomToken } from "@server/lib/crypto";
import { API_KEY_SCOPES } from "@shared/api-keys";
import { throwawayPostgres } from "@test/helpers";
import { benchApp } from "./bench-app";

const employeesWanted = Number(process.env.BENCH_EMPLOYEES ?? 400);
/** A key takes 600 calls a minute: enough keys that issuing, streams and status reads never wait on one. */
const KEYS = 20;
const dataDir = mkdtempSync(path.join(tmpdir(), "callproof-bench-success-"));
let database: Database;
let drop = async () => {};
if (process.env.BENCH_ENGINE === "postgres") {
  const base = process.env.BENCH_DATABASE_URL;
  if (!base) throw new Error("BENCH_ENGINE=postgres needs BENCH_DATABASE_URL");
  const scratch = await throwawayPostgres(base, "cp_bench_success");
  database = await openDatabase({ databaseUrl: scratch.url });
  drop = scratch.drop;
} else {
  database = await openDatabase({ dataDir: path.join(dataDir, "db") });
}
const { config, app } = await benchApp(database, dataDir);

const now = new Date();
const domain = `success-${randomBytes(3).toString("hex")}.test`;
const [org] = await database.db
  .insert(organisations)
  .values({ companyName: "Bench Success", domain, website: `https://${domain}`, websiteHost: domain, createdAt: now })
  .returning();
if (!org) throw new Error("no organisation");
const people = [
  { email: `boss@${domain}`, role: "superuser" as const },
  ...Array.from({ length: employeesWanted }, (_, i) => ({ email: `agent${i}@${domain}`, role: "client" as const })),
].map((u) => ({
  ...u,
  fullName: "Bench Person",
  passwordHash: "x",
  status: "active" as const,
  organisationId: org.id,
  emailVerifiedAt: now,
  createdAt: now,
}));
const inserted = await database.db.insert(users).values(people).returning({ id: users.id, email: users.email });
const boss = inserted[0];
if (!boss) throw new Error("no superuser");
const keys = Array.from({ length: KEYS }, () => `cpk_${randomToken(32)}`);
await database.db.insert(apiKeys).values(
  keys.map((key, i) => ({
    organisationId: org.id,
    name: `bench ${i}`,
    scopes: [...API_KEY_SCOPES],
    prefix: key.slice(0, 12),
    keyHash: hmac(config.appSecret, "api-key", key),
    createdBy: boss.id,
    createdAt: now,
  })),
);

const url = await app.listen({ port: 0, host: "127.0.0.1" });
console.log(JSON.stringify({ url, keys, employees: inserted.slice(1).map((u) => u.email) }));

process.on("SIGTERM", async () => {
  await app.close();
  await database.close();
  await drop();
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
});
