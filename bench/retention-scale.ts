/**
 * The audit log's daily work at scale (issue 36), on a PostgreSQL server of this benchmark's own (WAL
 * positions are cluster-wide): a migrated database filled with BENCH_ROWS audit events (default 10 M) over
 * 401 days, a chain row each, with `insert … select generate_series` (indexes dropped during the fill and
 * built again after, as the migrations define them). Then, each while 4 connections keep recording
 * events as look-ups do (their latency is the cost to look-ups of the locks the work holds), measures time,
 * WAL bytes and rows of:
 *   - the checkpoint job chaining 1,000 new events (chain.ts, checkpointAudit),
 *   - a feed page for an organisation (GET /api/v1/audit's query, feed.ts),
 *   - the IP cut after RETENTION_IP_DAYS (30): the hourly run's addresses (maintenance.ts, cutAuditAddresses),
 *   - the retention delete after RETENTION_AUDIT_DAYS (400): the hourly run's events (chain.ts, cutAuditBefore),
 * both in batches of RETENTION_BATCH events as the retention job runs them (retention.ts), with the WAL by kind
 * where pg_walinspect can be created.
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5498/postgres BENCH_ROWS=10000000 npm run bench -- retention-scale
 * BENCH_KEEP=1 keeps the database (its name is printed) and BENCH_REUSE=<name> measures on a kept one;
 * BENCH_DAYS_LATER=d (a fraction too: 0.0417 is an hour) measures there as at d days after the fill's end,
 * so a run with 0.5 after one with 0.0833 finds the work of a stop of ten hours.
 */
import { type Executor, openDatabase } from "@server/db/client";
import { auditFeed, checkpointAudit } from "@server/features/audit";
import { cutAuditBefore } from "@server/features/audit/chain";
import { cutAuditAddresses } from "@server/features/audit/maintenance";
import { RETENTION_BATCH } from "@server/features/audit/retention";
import { throwawayPostgres } from "@test/helpers";
import pg from "pg";

const base = process.env.BENCH_DATABASE_URL;
if (!base) {
  console.error("Set BENCH_DATABASE_URL to a PostgreSQL server of this benchmark's own.");
  process.exit(2);
}
const ROWS = Number(process.env.BENCH_ROWS ?? 10_000_000);
const DAYS = 401;
const DAY_MS = 86_400_000;
const ORGANISATIONS = 1_000;
const appSecret = "retention-scale-bench-secret-0123456789abcdef";

const reuse = process.env.BENCH_REUSE;
const scratch = reuse
  ? (() => {
      const url = new URL(base);
      url.pathname = `/${reuse}`;
      return { url: url.toString(), drop: async () => {} };
    })()
  : await throwawayPostgres(base, "cp_retention");
const database = await openDatabase({ databaseUrl: scratch.url });
const admin = new pg.Client({ connectionString: scratch.url });
await admin.connect();
const one = async <T>(q: string, params: unknown[] = []) => (await admin.query(q, params)).rows[0] as T;

// The fill: events over DAYS days up to `end`, evenly; addresses older than 30 days already cut (as the
// hourly job leaves them), whole since; chain rows with salts, commits and macs of the real sizes and kind
// (chain.ts: 16 random bytes and 32-byte HMACs in base64url; here base64 of a sha256 cut to those lengths).
const b64 = (seed: string, length: number) =>
  `substr(encode(sha256((g::text || '${seed}')::bytea), 'base64'), 1, ${length})`;
const { n: present, last } = await one<{ n: number; last: Date | null }>(
  "select count(*)::float8 as n, max(at) as last from audit_log",
);
// On a kept database, BENCH_DAYS_LATER=k measures k days after the fill (the next day's cut and delete).
const filledEnd = last ? Math.floor(last.getTime() / DAY_MS) * DAY_MS : Math.floor(Date.now() / DAY_MS) * DAY_MS;
const start = new Date(filledEnd - DAYS * DAY_MS);
const end = new Date(filledEnd + Number(process.env.BENCH_DAYS_LATER ?? 0) * DAY_MS);
if (present < ROWS) {
  const fillStarted = performance.now();
  const indexes = (
    await admin.query<{ name: string; def: string }>(
      `select indexname as name, indexdef as def from pg_indexes
        where tablename in ('audit_log', 'audit_chain') and indexname not like '%_pkey'`,
    )
  ).rows;
  for (const i of indexes) await admin.query(`drop index ${i.name}`);
  await admin.query("alter table audit_log disable trigger user");
  await admin.query("set synchronous_commit = off");
  const CHUNK = 1_000_000;
  for (let from = 1; from <= ROWS; from += CHUNK) {
    const to = Math.min(ROWS, from + CHUNK - 1);
    await admin.query(
      `insert into audit_log (id, at, actor_id, actor_email, organisation_id, action, target, ip, outcome, detail)
       select g, $1::timestamptz + (g::float8 / $3) * ($2::timestamptz - $1::timestamptz),
         case when g % 3 = 0 then null else (g % 400000)::int end,
         case when g % 3 = 0 then null else 'person' || (g % 400000) || '@org' || (g % ${ORGANISATIONS}) || '.example' end,
         (g % ${ORGANISATIONS})::int,
         case when g % 3 = 0 then 'code.verify' when g % 3 = 1 then 'code.generate' else 'auth.login' end,
         case when g % 3 = 0 then null else 'code:' || g end,
         case when $1::timestamptz + (g::float8 / $3) * ($2::timestamptz - $1::timestamptz) < $2::timestamptz - interval '31 days'
           then '198.51.' || (g % 250) || '.0/24' else '198.51.' || (g % 250) || '.' || (g % 200) end,
         case when g % 5 = 0 then 'failure' else 'success' end,
         jsonb_build_object('origin', 'https://org' || (g % ${ORGANISATIONS}) || '.example', 'language', 'en')
       from generate_series($4::bigint, $5::bigint) g`,
      [start.toISOString(), new Date(filledEnd).toISOString(), ROWS, from, to],
    );
    await admin.query(
      `insert into audit_chain (event_id, position, organisation_id, salts, commits, mac)
       select g, g, (g % ${ORGANISATIONS})::int,
         jsonb_build_object('email', ${b64("se", 22)}, 'target', ${b64("st", 22)}, 'detail', ${b64("sd", 22)})
           || case when g::float8 / $1 > ${(DAYS - 31) / DAYS} then jsonb_build_object('ip', ${b64("si", 22)}) else '{}' end,
         jsonb_build_object('email', ${b64("ce", 43)}, 'ip', ${b64("ci", 43)}, 'target', ${b64("ct", 43)},
           'detail', ${b64("cd", 43)}),
         ${b64("m", 43)}
       from generate_series($2::bigint, $3::bigint) g`,
      [ROWS, from, to],
    );
    console.log(`filled ${to.toLocaleString()} events, ${((performance.now() - fillStarted) / 1000).toFixed(0)} s`);
  }
  await admin.query("alter table audit_log enable trigger user");
  await admin.query(`select setval('audit_log_id_seq', ${ROWS})`);
  await admin.query(`select setval('audit_feed_position', ${ROWS})`);
  await admin.query(
    `insert into audit_chain_mark (id, below) values (1, ${ROWS}) on conflict (id) do update set below = ${ROWS},
       candidate = null, candidate_xmax = null`,
  );
  await admin.query("set maintenance_work_mem = '1GB'");
  for (const i of indexes) {
    const began = performance.now();
    await admin.query(i.def);
    console.log(`  index ${i.name}: ${((performance.now() - began) / 1000).toFixed(0)} s`);
  }
  await admin.query("vacuum analyze audit_log, audit_chain");
  console.log(
    `fill: ${ROWS.toLocaleString()} events in ${((performance.now() - fillStarted) / 60_000).toFixed(1)} min`,
  );
}
// As the hourly job leaves it: addresses cut up to 31 days ago.
await admin.query(
  `insert into audit_chain_mark (id, below, addresses_cut_before) values (1, 0, $1::timestamptz - interval '31 days')
   on conflict (id) do update set addresses_cut_before = coalesce(audit_chain_mark.addresses_cut_before, excluded.addresses_cut_before)`,
  [new Date(filledEnd).toISOString()],
);
const { size } = await one<{ size: string }>("select pg_size_pretty(pg_database_size(current_database())) as size");
console.log(
  `database: ${size}; audit_log ${(await one<{ s: string }>("select pg_size_pretty(pg_total_relation_size('audit_log')) as s")).s}, audit_chain ${(await one<{ s: string }>("select pg_size_pretty(pg_total_relation_size('audit_chain')) as s")).s}`,
);

// Look-ups meanwhile: 4 connections each recording an event up to 100 times a second, as the look-up's
// statement does (paused while a feed page is measured, so that the page does not chain them first).
const lookUps = await Promise.all(
  Array.from({ length: 4 }, async () => {
    const c = new pg.Client({ connectionString: scratch.url });
    await c.connect();
    return c;
  }),
);
let latencies: number[] = [];
let running = true;
let paused = false;
const looking = Promise.all(
  lookUps.map(async (c, i) => {
    while (running) {
      const began = performance.now();
      if (paused) {
        await new Promise((r) => setTimeout(r, 10));
        continue;
      }
      await c.query(
        `insert into audit_log (at, action, outcome, organisation_id, ip, detail)
         values ($1, 'code.verify', 'failure', $2, '203.0.113.9', '{"language": "en"}')`,
        [end.toISOString(), i + 1],
      );
      const ms = performance.now() - began;
      latencies.push(ms);
      if (ms < 10) await new Promise((r) => setTimeout(r, 10 - ms));
    }
  }),
);

/**
 * The WAL between two positions by kind (pg_walinspect, PostgreSQL 15's contrib, where it can be created):
 * each resource manager's megabytes, and how many of them are full-page images (a page's first change
 * after a checkpoint writes the whole page). It reads only WAL already flushed: up to `to` or the flush.
 */
const walKinds = await admin.query("create extension if not exists pg_walinspect").then(
  () => async (from: string, to: string) => {
    const rows = (
      await admin.query<{ kind: string; record: number; fpi: number }>(
        `select "resource_manager/record_type" as kind, record_size::float8 as record, fpi_size::float8 as fpi
         from pg_get_wal_stats($1, least($2, pg_current_wal_flush_lsn())) where combined_size > 100000 order by combined_size desc`,
        [from, to],
      )
    ).rows;
    const mb = (b: number) => (b / 1e6).toFixed(1);
    return rows.length
      ? `\n    WAL by kind: ${rows.map((r) => `${r.kind} ${mb(r.record + r.fpi)} MB (full pages ${mb(r.fpi)})`).join(", ")}`
      : "";
  },
  () => null,
);

const deps = {
  db: database.db,
  config: { appSecret },
  clock: { now: () => end },
  log: { info() {} },
};
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * q)] ?? 0;

async function measure(label: string, work: () => Promise<unknown>) {
  await new Promise((r) => setTimeout(r, 2_000));
  const { c: chainedBefore } = await one<{ c: number }>("select count(*)::float8 as c from audit_chain");
  const quiet = latencies;
  latencies = [];
  const { lsn: before } = await one<{ lsn: string }>("select pg_current_wal_lsn()::text as lsn");
  const began = performance.now();
  const result = await work();
  const ms = performance.now() - began;
  const during = latencies;
  latencies = [];
  const { lsn: after } = await one<{ lsn: string }>("select pg_current_wal_lsn()::text as lsn");
  const { b } = await one<{ b: number }>("select pg_wal_lsn_diff($1, $2)::float8 as b", [after, before]);
  const { c: chainedAfter } = await one<{ c: number }>("select count(*)::float8 as c from audit_chain");
  const chained = chainedAfter - chainedBefore;
  // (the work's first WAL may be recycled already: wal_keep_size on the bench's server keeps it)
  const kinds =
    walKinds && b > 1e6 ? await walKinds(before, after).catch((e: Error) => `\n    WAL by kind: ${e.message}`) : "";
  console.log(
    `${label}: ${ms.toFixed(0)} ms, ${(b / 1e6).toFixed(2)} MB WAL, ${JSON.stringify(result)}` +
      `${chained ? `, ${chained} events chained (${(chained / (ms / 1000)).toFixed(0)}/s)` : ""}; ` +
      `events recorded meanwhile ${during.length}, p99 ${quantile(during, 0.99).toFixed(1)} ms, max ${Math.max(0, ...during).toFixed(0)} ms ` +
      `(2 s before: ${quiet.length}, p99 ${quantile(quiet, 0.99).toFixed(1)} ms)${kinds}`,
  );
}

// The checkpoint after the look-ups above wrote events: first what they wrote so far, then 1,000 more.
await checkpointAudit(deps);
await admin.query(
  `insert into audit_log (at, action, outcome, organisation_id) select $1, 'code.verify', 'failure', g % ${ORGANISATIONS}
   from generate_series(1, 1000) g`,
  [end.toISOString()],
);
await measure("checkpoint: chain the events since the last run (1,000 and the look-ups')", () => checkpointAudit(deps));
const { p: middle } = await one<{ p: number }>("select (max(position) / 2)::float8 as p from audit_chain");
paused = true;
await checkpointAudit(deps);
await measure("feed page: an organisation's 100 events after a position in the middle of the log", async () => {
  const page = await auditFeed(deps, { organisationId: 7, after: middle, limit: 100 });
  return { items: page.items.length };
});
await measure("feed page: an organisation's first page after its newest event (empty)", async () => {
  const { p } = await one<{ p: number }>(
    "select max(position)::float8 as p from audit_chain where organisation_id = 7",
  );
  const page = await auditFeed(deps, { organisationId: 7, after: p, limit: 100 });
  return { items: page.items.length };
});
paused = false;
// The hourly job's work: an hour's addresses to cut (two, with the hour read again for late commits) and an
// hour's events to delete, then a run with nothing new; the app's own 10 s statement timeout applies.
const hourly = new Date(end.getTime() - 23 * 3_600_000);
const cutBefore = new Date(hourly.getTime() - 30 * DAY_MS);
const deleteBefore = new Date(hourly.getTime() - 400 * DAY_MS);
/** As applyRetention works through them: batches of RETENTION_BATCH events, each its own transaction, until none is left. */
async function inBatches(batch: (tx: Executor, first: boolean) => Promise<{ n: number; more: boolean }>) {
  let n = 0;
  let batches = 0;
  let slowest = 0;
  for (let more = true; more; batches++) {
    const began = performance.now();
    const done = await database.db.transaction((tx) => batch(tx, batches === 0));
    slowest = Math.max(slowest, performance.now() - began);
    n += done.n;
    more = done.more;
  }
  return { n, batches, slowestBatchMs: Math.round(slowest) };
}
const cut = () =>
  inBatches(async (tx, first) => {
    const { cut, more } = await cutAuditAddresses(tx, cutBefore, { limit: RETENTION_BATCH, lookBack: first });
    return { n: cut, more };
  });
const trim = () =>
  inBatches(async (tx) => {
    const n = await cutAuditBefore(tx, appSecret, deleteBefore, hourly, RETENTION_BATCH);
    return { n, more: n >= RETENTION_BATCH };
  });
await measure("IP cut after 30 days: the hourly run", cut);
await measure("IP cut again (nothing new)", cut);
await measure("retention delete after 400 days: the hourly run", trim);
await measure("retention delete again (nothing new)", trim);

running = false;
await looking;
await Promise.all(lookUps.map((c) => c.end()));
await admin.end();
await database.close();
if (process.env.BENCH_KEEP === "1") console.log(`kept: ${new URL(scratch.url).pathname.slice(1)}`);
else await scratch.drop();
