/**
 * Where a look-up's time goes, without HTTP: the product's look-up statement and the naive baseline's
 * three statements, one after another on one engine, plus their plans.
 *   npm run bench -- verify-profile                      (PGlite on disk, as `npm start` runs it)
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench -- verify-profile   (then PostgreSQL)
 * Prints EXPLAIN (ANALYZE, BUFFERS) of each statement (the product's as a prepared statement after
 * warm-up, with how often it was planned afresh: pg_prepared_statements' custom_plans), then the
 * mean time per look-up of each way over PROFILE_LOOKUPS (default 2000) look-ups, PROFILE_CONCURRENCY
 * (default 1) at a time; PROFILE_ONLY=timing skips the plans.
 * For the Node side: `node --cpu-prof --import tsx bench/support/verify-server.ts` under load.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { type Database, type Db, openDatabase } from "@server/db/client";
import { lookUpAndVerify } from "@server/features/codes/repository";
import { IDENTITY_CODE } from "@shared/constants";
import { sqlLiteral, statementSent, throwawayPostgres } from "@test/helpers";
import { PgDialect } from "drizzle-orm/pg-core";
import pg from "pg";
import { naive, seedBench } from "./support/naive-verify";

const N = Number(process.env.PROFILE_LOOKUPS ?? 2000);
const dialect = new PgDialect();
type Param = string | number | boolean | null;
type Raw = (text: string) => Promise<Record<string, unknown>[]>;

const randomHash = () => randomBytes(32).toString("base64url");
let seq = 0;
const lookup = () => {
  const n = ++seq;
  return { key: `codes-verify:ip:10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`, ip: `10.0.${n >> 8}.${n & 255}` };
};
const limit = (key: string) => ({ key, limit: IDENTITY_CODE.lookupsPerWindow, windowMs: IDENTITY_CODE.lookupWindowMs });

/** The product's look-up (the widget's, with its verification) of a made-up code by an IPv4 client of its own. */
function productLookUp(db: Db, hashes = [randomHash()]) {
  const { key, ip } = lookup();
  return lookUpAndVerify(db, {
    limit: limit(key),
    networkLimit: null,
    codeHashes: hashes,
    now: new Date(),
    scope: "any",
    origin: null,
    originHost: null,
    ip,
  });
}

/** The product's statement text and parameters for one look-up, as repository.ts builds it. */
function productStatement(hashes: string[]) {
  return statementSent((db) => productLookUp(db, hashes), { allowed: true, candidate: false, verification: null });
}

function inline(text: string, params: Param[]) {
  return text.replace(/\$(\d+)/g, (_, i) => sqlLiteral(params[Number(i) - 1] ?? null));
}

async function explainAll(raw: Raw) {
  const product = await productStatement([randomHash()]);
  await raw(`prepare prof_verify as ${product.text}`);
  for (let i = 0; i < 12; i++) {
    const p = await productStatement([randomHash()]);
    await raw(`execute prof_verify(${p.params.map(sqlLiteral).join(", ")})`);
  }
  const p = await productStatement([randomHash()]);
  const plan = await raw(`explain (analyze, buffers) execute prof_verify(${p.params.map(sqlLiteral).join(", ")})`);
  console.log("-- product look-up, first statement (prepared, after 12 executions), unknown code:");
  for (const r of plan) console.log(Object.values(r)[0]);
  const plans = await raw("select generic_plans, custom_plans from pg_prepared_statements where name = 'prof_verify'");
  console.log(`   plans so far: ${JSON.stringify(plans[0])}\n`);
  await raw("deallocate prof_verify");
  const now = new Date();
  const { key, ip } = lookup();
  for (const [name, q] of [
    ["naive 1: rate-limit upsert", naive.hit(key, 20, 3_600_000, now)],
    ["naive 2: consume", naive.consume(randomHash(), now)],
    [
      "naive 3: audit insert",
      naive.audit({ now, organisationId: null, target: null, ip, outcome: "failure", origin: null }),
    ],
  ] as const) {
    const { sql: text, params } = dialect.sqlToQuery(q);
    const rows = await raw(`explain (analyze, buffers) ${inline(text, params as Param[])}`);
    console.log(`-- ${name}:`);
    for (const r of rows) console.log(Object.values(r)[0]);
    console.log();
  }
}

const CONCURRENCY = Number(process.env.PROFILE_CONCURRENCY ?? 1);

/** Mean wall time per look-up over N / ROUNDS look-ups, CONCURRENCY of them at a time (as 32 HTTP connections would). */
const ROUNDS = 3;
async function time(fn: () => Promise<unknown>) {
  for (let i = 0; i < 50; i++) await fn();
  const start = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = 0; i < N / ROUNDS / CONCURRENCY; i++) await fn();
    }),
  );
  return Number(process.hrtime.bigint() - start) / 1000 / N;
}

async function profile(engine: "pglite" | "postgres") {
  const dir = mkdtempSync(path.join(tmpdir(), "callproof-profile-"));
  let database: Database;
  let raw: Raw;
  let drop = async () => {};
  let closeRaw = async () => {};
  if (engine === "postgres") {
    const scratch = await throwawayPostgres(process.env.BENCH_DATABASE_URL as string, "cp_bench");
    drop = scratch.drop;
    database = await openDatabase({ databaseUrl: scratch.url });
    const client = new pg.Client({ connectionString: scratch.url });
    await client.connect();
    raw = async (text) => (await client.query(text)).rows;
    closeRaw = () => client.end();
  } else {
    const pglite = await PGlite.create(path.join(dir, "db"));
    database = await openDatabase({ pglite });
    raw = async (text) => {
      const results = await pglite.exec(text);
      return (results.at(-1)?.rows ?? []) as Record<string, unknown>[];
    };
  }
  try {
    await seedBench(database);
    // The look-up's first run through the app's client makes the verification's function it calls.
    await productLookUp(database.db);
    console.log(`== ${engine}\n`);
    if (process.env.PROFILE_ONLY !== "timing") await explainAll(raw);
    const db = database.db;
    const way = (prepared: boolean) => async () => {
      const now = new Date();
      const { key, ip } = lookup();
      const run = (label: string, q: Parameters<Db["rows"]>[0]) => (prepared ? db.prepared(label, q) : db.rows(q));
      await run("prof_hit", naive.hit(key, 20, 3_600_000, now));
      const [used] = await run("prof_consume", naive.consume(randomHash(), now));
      await run(
        "prof_audit",
        naive.audit({ now, organisationId: null, target: used ? "x" : null, ip, outcome: "failure", origin: null }),
      );
    };
    const ways: [string, () => Promise<unknown>][] = [
      [`${engine}: product, 1 statement (prepared)`, () => productLookUp(db)],
      [`${engine}: naive, 3 plain statements`, way(false)],
      [`${engine}: naive, 3 statements, plans cached`, way(true)],
    ];
    // Rounds alternate between the ways, so a change in the machine's load touches all of them alike.
    const totals = ways.map(() => 0);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, [, fn]] of ways.entries()) totals[i] = (totals[i] ?? 0) + (await time(fn)) / ROUNDS;
    }
    for (const [i, [name]] of ways.entries()) {
      console.log(`${name.padEnd(48)} ${(totals[i] ?? 0).toFixed(0).padStart(6)} µs per look-up`);
    }
    const [product = 1, plain = 0, cached = 0] = totals;
    console.log(
      `${engine}: naive ÷ product ${(plain / product).toFixed(2)}x (plain), ${(cached / product).toFixed(2)}x (cached plans)\n`,
    );
  } finally {
    await closeRaw();
    await database.close();
    await drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await profile("pglite");
if (process.env.BENCH_DATABASE_URL) await profile("postgres");
