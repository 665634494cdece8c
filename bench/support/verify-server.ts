/**
 * The server half of the verify benchmark, run in its own process so the load generator does not
 * share its event loop: the whole product (TRUST_PROXY on, logging off) plus a baseline route that
 * exists only here. Prints `{"url": ...}` once listening; SIGTERM closes it (and drops its database).
 *   BENCH_ENGINE=pglite | postgres   (postgres needs BENCH_DATABASE_URL: a fresh database is made on that server;
 *   with BENCH_POOLER_URL the app's pool reaches it through that PgBouncer)
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { buildApp } from "@server/app";
import { loadConfig } from "@server/config";
import { type Database, openDatabase } from "@server/db/client";
import { organisations, users } from "@server/db/schema";
import { codeHash } from "@server/features/codes/service";
import { parseWords } from "@server/features/codes/words";
import { rateLimited } from "@server/lib/errors";
import { siteScope } from "@server/lib/origin";
import { hitStatement } from "@server/lib/rate-limit";
import { smtpMailer } from "@server/mail/mailer";
import { CODES_TEXT } from "@shared/codes";
import { verifyBody } from "@shared/codes-schemas";
import { IDENTITY_CODE } from "@shared/constants";
import { MESSAGES } from "@shared/messages";
import { throwawayPostgres } from "@test/helpers";
import { type SQL, sql } from "drizzle-orm";
import type { FastifyRequest } from "fastify";

const engine = process.env.BENCH_ENGINE === "postgres" ? "postgres" : "pglite";
const dataDir = mkdtempSync(path.join(tmpdir(), "callproof-bench-"));
let database: Database;
let dropDatabase = async () => {};

if (engine === "postgres") {
  const base = process.env.BENCH_DATABASE_URL;
  if (!base) throw new Error("BENCH_ENGINE=postgres needs BENCH_DATABASE_URL");
  const scratch = await throwawayPostgres(base, "cp_bench");
  // BENCH_POOLER_URL (a PgBouncer in transaction mode in front of that server): the pool goes through it,
  // migrations and LISTEN go to the server (DATABASE_DIRECT_URL).
  const pooler = process.env.BENCH_POOLER_URL ? new URL(process.env.BENCH_POOLER_URL) : null;
  if (pooler) pooler.pathname = new URL(scratch.url).pathname;
  database = await openDatabase({ databaseUrl: pooler?.toString() ?? scratch.url, directUrl: scratch.url });
  dropDatabase = scratch.drop;
} else {
  // On disk, as `npm start` runs it.
  database = await openDatabase({ dataDir: path.join(dataDir, "db") });
}

const config = loadConfig({
  APP_SECRET: randomBytes(32).toString("base64url"),
  DATA_DIR: dataDir,
  PUBLIC_URL: "http://localhost:3000",
  TRUST_PROXY: "127.0.0.1",
  LOG_LEVEL: "silent",
});
const app = await buildApp({
  config,
  database,
  logger: false,
  mailer: smtpMailer("smtp://127.0.0.1:9", config.mailFrom),
});

/**
 * The baselines: the same work as POST /api/verify done the plain way, as three statements
 * (rate-limit upsert, atomic consume, audit insert) instead of one; `prepared` runs each of the three
 * with a cached plan too, to show what the single statement itself is worth.
 */
function baseline(prepared: boolean) {
  const run = async <T>(label: string, query: SQL): Promise<T[]> =>
    prepared ? app.deps.db.prepared<T>(label, query) : app.deps.db.rows<T>(query);
  return async (request: FastifyRequest<{ Body: { words: string } }>) => {
    const now = app.deps.clock.now();
    const iso = now.toISOString();
    const origin = request.headers.origin;
    const scope = siteScope(origin, config.publicOrigin);
    const words = parseWords(request.body.words);
    const key = `codes-verify:ip:${request.clientKey}`;
    const { lookupsPerWindow, lookupWindowMs } = IDENTITY_CODE;
    const [limit] = await run<{ allowed: boolean }>(
      "bench_hit",
      hitStatement(key, lookupsPerWindow, lookupWindowMs, now),
    );
    if (!limit?.allowed) throw rateLimited(CODES_TEXT.tooManyLookups, 60);
    const hosts = scope === "any" ? "" : scope.join(",");
    const [used] = await run<{ id: number; user_id: number; organisation_id: number | null; full_name: string }>(
      "bench_consume",
      sql`
        update identity_codes ic set used_at = ${iso}::timestamptz
        from users u left join organisations o on o.id = u.organisation_id
        where ic.code_hash = ${words ? codeHash(config.appSecret, words) : ""}::text
          and u.id = ic.user_id and u.status = 'active'
          and ic.used_at is null and ic.expires_at > ${iso}::timestamptz
          and (${scope === "any"}::boolean or coalesce(o.domain = any(string_to_array(${hosts}::text, ','))
            or o.website_host = any(string_to_array(${hosts}::text, ',')), false))
        returning ic.id, ic.user_id, u.organisation_id, u.full_name`,
    );
    await run(
      "bench_audit",
      sql`
        insert into audit_log (at, organisation_id, action, target, ip, outcome, detail)
        values (${iso}::timestamptz, ${used?.organisation_id ?? null}::int, 'code.verify', ${used ? String(used.id) : null}::text,
          ${request.ip}::text, ${used ? "success" : "failure"}::text,
          jsonb_build_object('origin', ${origin ?? null}::text, 'ownerId', ${used?.user_id ?? null}::int))`,
    );
    return used
      ? { verified: true, caller: { fullName: used.full_name } }
      : { verified: false, message: MESSAGES.codeNotVerified };
  };
}
app.post("/bench/baseline-verify", { schema: { body: verifyBody } }, baseline(false));
app.post("/bench/baseline-prepared-verify", { schema: { body: verifyBody } }, baseline(true));

// Some live and used codes, so the look-ups search a non-trivial index.
const now = new Date();
const [org] = await database.db
  .insert(organisations)
  .values({
    companyName: "Bench Ltd",
    domain: "bench.example",
    website: "https://bench.example",
    websiteHost: "bench.example",
    createdAt: now,
  })
  .returning();
const [owner] = await database.db
  .insert(users)
  .values({
    email: "owner@bench.example",
    fullName: "Bench Owner",
    passwordHash: "x",
    role: "client",
    status: "active",
    organisationId: org?.id,
    createdAt: now,
  })
  .returning();
await database.db.execute(sql`
  insert into identity_codes (user_id, code_hash, created_at, expires_at, used_at)
  select ${owner?.id}::int, md5(i::text), ${now.toISOString()}::timestamptz,
    ${new Date(now.getTime() + 3_600_000).toISOString()}::timestamptz,
    case when i % 2 = 0 then ${now.toISOString()}::timestamptz end
  from generate_series(1, 20000) i`);

const url = await app.listen({ port: 0, host: "127.0.0.1" });
console.log(JSON.stringify({ url, engine }));

process.on("SIGTERM", async () => {
  await app.close();
  await database.close();
  await dropDatabase();
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
});
