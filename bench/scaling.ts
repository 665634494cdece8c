/**
 * The figures behind docs/scaling.md, on a PostgreSQL server of its own (WAL and pg_stat_wal are
 * cluster-wide: on a shared server other databases' writes would count). Needs pg_stat_statements
 * preloaded (shared_preload_libraries) on that server. For N successful look-ups, N failed ones and
 * N code generations through the whole product: statements, transactions, WAL records and bytes
 * (pg_current_wal_lsn before and after) per operation, and the statements that wrote the WAL; the
 * connections one process holds; then the cost of NOTIFY per commit (16 connections committing small
 * inserts, with and without pg_notify, a listener attached). Each operation is charged the chaining of its
 * own audit events (the checkpoint job runs before and at the end of each phase, inside the measurement),
 * so that its WAL is what it costs in steady state.
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5499/postgres npm run bench -- scaling
 */

import { openDatabase } from "@server/db/client";
import { checkpointAudit } from "@server/features/audit";
import { drawWords } from "@server/features/codes/words";
import { generate, signedInEmployee, storeCode, verify } from "@test/fixtures";
import { buildTestApp, throwawayPostgres } from "@test/helpers";
import pg from "pg";

const base = process.env.BENCH_DATABASE_URL;
if (!base) {
  console.error(
    "Set BENCH_DATABASE_URL to a PostgreSQL server of this benchmark's own, with pg_stat_statements preloaded.",
  );
  process.exit(2);
}
const N = Number(process.env.BENCH_N ?? 200);

const scratch = await throwawayPostgres(base, "cp_scaling");
const admin = new pg.Client({ connectionString: scratch.url });
await admin.connect();
await admin.query("create extension if not exists pg_stat_statements");
const { rows: dbRows } = await admin.query<{ oid: number }>(
  "select oid from pg_database where datname = current_database()",
);
const dbid = dbRows[0]?.oid;

const database = await openDatabase({ databaseUrl: scratch.url });
const t = await buildTestApp({ database });

type Snapshot = { lsn: string; records: number; fpi: number };
async function snapshot(): Promise<Snapshot> {
  const { rows } = await admin.query(
    `select pg_current_wal_lsn()::text as lsn, w.wal_records::float8 as records, w.wal_fpi::float8 as fpi
       from pg_stat_wal w`,
  );
  return rows[0] as Snapshot;
}

async function measure(label: string, n: number, work: () => Promise<void>) {
  await t.app.deps.background.idle();
  await checkpointAudit(t.app.deps);
  await admin.query("select pg_stat_statements_reset()");
  const before = await snapshot();
  const started = performance.now();
  await work();
  const ms = performance.now() - started;
  await t.app.deps.background.idle();
  await checkpointAudit(t.app.deps);
  const after = await snapshot();
  const { rows: bytes } = await admin.query<{ b: number }>("select pg_wal_lsn_diff($1, $2)::float8 as b", [
    after.lsn,
    before.lsn,
  ]);
  const { rows: statements } = await admin.query<{ query: string; calls: number; wal_bytes: number; rows: number }>(
    `select left(regexp_replace(query, '\\s+', ' ', 'g'), 90) as query, calls::float8 as calls,
            wal_bytes::float8 as wal_bytes, rows::float8 as rows
       from pg_stat_statements where dbid = $1 and toplevel and query not like '%pg_stat%' and query not like '%pg_wal%'
      order by wal_bytes desc, calls desc`,
    [dbid],
  );
  const calls = statements.reduce((s, r) => s + r.calls, 0);
  const walBytes = bytes[0]?.b ?? 0;
  console.log(
    `\n${label}: ${n} in ${(ms / 1000).toFixed(1)} s — per operation: ${(calls / n).toFixed(1)} statements ` +
      "(BEGIN/COMMIT included), " +
      `${((after.records - before.records) / n).toFixed(1)} WAL records (${((after.fpi - before.fpi) / n).toFixed(2)} full-page images), ` +
      `${(walBytes / n).toFixed(0)} WAL bytes`,
  );
  for (const s of statements.slice(0, 8)) {
    console.log(
      `  ${(s.calls / n).toFixed(2).padStart(5)} calls ${(s.wal_bytes / n).toFixed(0).padStart(6)} WAL bytes  ${s.query}`,
    );
  }
}

// Warm-up: plans, caches, the first full-page images after the template copy.
const { organisation, user, browser } = await signedInEmployee(t);
const origin = `https://${organisation.domain}`;
for (let i = 0; i < 20; i++) await verify(t, await storeCode(t, user.id), { origin });

const codes: string[] = [];
for (let i = 0; i < N; i++) codes.push(await storeCode(t, user.id));
await measure("successful look-ups (POST /api/verify, a live code, the organisation's Origin)", N, async () => {
  for (const words of codes) {
    const res = await verify(t, words, { origin });
    if (!(res.json() as { verified: boolean }).verified) throw new Error("a look-up failed");
  }
});
await measure("failed look-ups (random words)", N, async () => {
  for (let i = 0; i < N; i++) await verify(t, drawWords().join(" "), { origin });
});
await measure("code generations (POST /api/generate-words)", N, async () => {
  for (let i = 0; i < N; i++) {
    await generate(browser);
    t.clock.advance(21_000); // 3 a minute per person
  }
});

const { rows: held } = await admin.query<{ n: number }>(
  "select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()",
);
console.log(
  `\nconnections this one process holds on its database after the look-ups: ${held[0]?.n} ` +
    `(pool max ${database.pool?.options.max}, plus one LISTEN connection)`,
);

await t.close();
await database.close();

// NOTIFY at commit: a small insert per transaction from 16 connections, with and without pg_notify.
await admin.query("create table notify_bench (id bigserial primary key, at timestamptz default now())");
const listener = new pg.Client({ connectionString: scratch.url });
await listener.connect();
await listener.query("listen bench_channel");
let heard = 0;
listener.on("notification", () => heard++);
async function commitsPerSecond(statement: string, seconds = 5): Promise<number> {
  const clients = await Promise.all(
    Array.from({ length: 16 }, async () => {
      const c = new pg.Client({ connectionString: scratch.url });
      await c.connect();
      return c;
    }),
  );
  let commits = 0;
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    clients.map(async (c) => {
      while (performance.now() < until) {
        await c.query(statement);
        commits++;
      }
    }),
  );
  await Promise.all(clients.map((c) => c.end()));
  return commits / seconds;
}
const plain = await commitsPerSecond("insert into notify_bench default values");
const notified = await commitsPerSecond(
  "with i as (insert into notify_bench default values returning id) select pg_notify('bench_channel', id::text) from i",
);
const unheard = await commitsPerSecond(
  "with i as (insert into notify_bench default values returning id) select pg_notify('nobody_listens', id::text) from i",
);
console.log(
  `\nNOTIFY at commit, 16 connections: ${plain.toFixed(0)} commits/s without, ${notified.toFixed(0)} with pg_notify ` +
    `to a listened channel (${heard} heard), ${unheard.toFixed(0)} to a channel nobody listens to`,
);
await listener.end();
await admin.end();
await scratch.drop();
