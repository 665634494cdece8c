/**
 * The server half of the verify benchmark, run in its own process so the load generator does not
 * share its event loop: the whole product (TRUST_PROXY on, logging off) plus a baseline route that
 * exists only here. Prints `{"url": ...}` once listening; SIGTERM closes it (and drops its database).
 *   BENCH_ENGINE=pglite | postgres   (postgres needs BENCH_DATABASE_URL: a fresh database is made on that server;
 *   with BENCH_POOLER_URL the app's pool reaches it through that PgBouncer)
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Database, openDatabase } from "@server/db/client";
import { codeHash } from "@server/features/codes/service";
import { parseWords } from "@server/features/codes/words";
import { rateLimited } from "@server/lib/errors";
import { CODES_TEXT } from "@shared/codes";
import { verifyBody } from "@shared/codes-schemas";
import { IDENTITY_CODE } from "@shared/constants";
import { MESSAGES } from "@shared/messages";
import { throwawayPostgres } from "@test/helpers";
import type { SQL } from "drizzle-orm";
import type { FastifyRequest } from "fastify";
import { benchApp } from "./bench-app";
import { leastWorkServer } from "./least-work";
import { naive, seedBench } from "./naive-verify";

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

const { config, app } = await benchApp(database, dataDir);

/**
 * The baselines: what a naive server would do for the same request (bench/support/naive-verify.ts), as
 * three plain statements (rate-limit upsert, atomic consume, audit insert) through the driver's ordinary
 * query call; `prepared` runs the same three with cached plans, for information.
 */
function baseline(prepared: boolean) {
  const run = async <T>(label: string, query: SQL): Promise<T[]> =>
    prepared ? app.deps.db.prepared<T>(label, query) : app.deps.db.rows<T>(query);
  return async (request: FastifyRequest<{ Body: { words: string } }>) => {
    const now = app.deps.clock.now();
    const origin = request.headers.origin ?? null;
    const words = parseWords(request.body.words);
    const { lookupsPerWindow, lookupWindowMs } = IDENTITY_CODE;
    const key = `codes-verify:ip:${request.clientKey}`;
    const [limit] = await run<{ allowed: boolean }>("bench_hit", naive.hit(key, lookupsPerWindow, lookupWindowMs, now));
    if (!limit?.allowed) throw rateLimited(CODES_TEXT.tooManyLookups, 60);
    const hash = words ? codeHash(config.appSecret, words) : "";
    const [used] = await run<{ id: number; user_id: number; organisation_id: number | null; full_name: string }>(
      "bench_consume",
      naive.consume(hash, now),
    );
    await run(
      "bench_audit",
      naive.audit({
        now,
        organisationId: used?.organisation_id ?? null,
        target: used ? String(used.id) : null,
        ip: request.ip,
        outcome: used ? "success" : "failure",
        origin,
      }),
    );
    return used
      ? { verified: true, caller: { fullName: used.full_name } }
      : { verified: false, message: MESSAGES.codeNotVerified };
  };
}
app.post("/bench/baseline-verify", { schema: { body: verifyBody } }, baseline(false));
app.post("/bench/baseline-prepared-verify", { schema: { body: verifyBody } }, baseline(true));

// Some live and used codes, so the look-ups search a non-trivial index.
await seedBench(database);

// BENCH_CPU_PROFILE=file: a V8 CPU profile of the serving alone (not start-up or seeding), written on SIGTERM.
const profileFile = process.env.BENCH_CPU_PROFILE;
const profiler = profileFile ? new Session() : null;
if (profiler) {
  profiler.connect();
  await profiler.post("Profiler.enable");
  await profiler.post("Profiler.setSamplingInterval", { interval: Number(process.env.BENCH_CPU_INTERVAL ?? 1000) });
  await profiler.post("Profiler.start");
}

const url = await app.listen({ port: 0, host: "127.0.0.1" });
// The least-work server: its own plain Fastify on the same database, in this process (PGlite has one).
const leastWork = await leastWorkServer(database, config.appSecret);
const leastWorkUrl = await leastWork.listen({ port: 0, host: "127.0.0.1" });
console.log(JSON.stringify({ url, leastWorkUrl, engine }));

process.on("SIGTERM", async () => {
  if (profiler && profileFile) {
    const { profile } = await profiler.post("Profiler.stop");
    writeFileSync(profileFile, JSON.stringify(profile));
  }
  await leastWork.close();
  await app.close();
  await database.close();
  await dropDatabase();
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
});
