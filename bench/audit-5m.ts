/**
 * Audit viewer at scale: seeds AUDIT_ROWS (default 5,000,000) audit events into a throwaway PostgreSQL
 * database, then times the viewer's reads through the audit repository: a page (first, deep, last) with
 * its total, and the filters (organisation, actor, action prefix, time window).
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench -- audit-5m
 * Each figure is the median of 5 runs after one warm-up.
 */
import { performance } from "node:perf_hooks";
import { openDatabase } from "@server/db/client";
import { countEvents, listEvents } from "@server/features/audit/repository";
import { AUDIT_PAGE_SIZE } from "@shared/audit";
import { throwawayPostgres } from "@test/helpers";
import pg from "pg";

const base = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL;
if (!base) {
  console.error("Set BENCH_DATABASE_URL to a PostgreSQL server (postgres://postgres@127.0.0.1:5432/postgres).");
  process.exit(2);
}
const ROWS = Number(process.env.AUDIT_ROWS ?? 5_000_000);
const CHUNK = 500_000;
const ORGS = 2000;
const ACTORS = 20_000;

const scratch = await throwawayPostgres(base, "cp_bench_audit");
const database = await openDatabase({ databaseUrl: scratch.url });
const { db } = database;
// Seeding runs on its own connection, without the app pool's statement time limit.
const seeder = new pg.Client({ connectionString: scratch.url });
await seeder.connect();

try {
  const seedStart = performance.now();
  // One year of events, oldest first; about 10 % without an organisation; 12 actions in 4 families.
  for (let from = 1; from <= ROWS; from += CHUNK) {
    const to = Math.min(ROWS, from + CHUNK - 1);
    await seeder.query(
      `insert into audit_log (at, actor_id, actor_email, organisation_id, action, target, ip, outcome)
      select timestamptz '2030-01-01' + (g * (365.0 * 86400 / $1)) * interval '1 second',
             (g % $2) + 1,
             'user' || (g % $2) || '@example.com',
             case when g % 10 = 0 then null else (g * 7919) % $3 + 1 end,
             (array['auth.login','auth.logout','auth.verify-2fa','codes.generate','codes.verify','codes.expire',
                    'employer.deactivate-employee','employer.generate-access-code','employer.webhook',
                    'admin.activate-account','admin.deactivate-employer','admin.generate-employer-access-code'])[g % 12 + 1],
             (g % 1000)::text, '10.0.' || (g % 250) || '.' || (g % 200), case when g % 17 = 0 then 'failure' else 'success' end
      from generate_series($4::bigint, $5::bigint) g`,
      [ROWS, ACTORS, ORGS, from, to],
    );
    process.stdout.write(`\rseeded ${to.toLocaleString("en")} rows`);
  }
  await seeder.query("vacuum analyze audit_log");
  console.log(`\nseeded and analysed in ${((performance.now() - seedStart) / 1000).toFixed(0)} s\n`);

  const lastPage = Math.ceil(ROWS / AUDIT_PAGE_SIZE);
  const cases: Array<[string, Parameters<typeof listEvents>[1], number]> = [
    ["whole log, page 1", {}, 1],
    ["whole log, page 100", {}, 100],
    ["whole log, page 10,000", {}, 10_000],
    [`whole log, last page (${lastPage.toLocaleString("en")})`, {}, lastPage],
    ["organisation 42, page 1", { organisationId: 42 }, 1],
    ["organisation 42, page 20", { organisationId: 42 }, 20],
    ["actor user123@example.com, page 1", { actorEmail: "user123@example.com" }, 1],
    ["action prefix 'admin', page 1", { action: "admin" }, 1],
    ["action 'codes.verify', page 1", { action: "codes.verify" }, 1],
    ["one day (2030-06-01), page 1", { from: new Date("2030-06-01"), until: new Date("2030-06-02") }, 1],
    [
      "organisation 42 + one month",
      { organisationId: 42, from: new Date("2030-03-01"), until: new Date("2030-04-01") },
      1,
    ],
  ];

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const time = async (fn: () => Promise<unknown>) => {
    await fn();
    const runs: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      await fn();
      runs.push(performance.now() - t);
    }
    return median(runs);
  };

  console.log("| view | page | total | total (ms) |");
  console.log("|---|---|---|---|");
  for (const [name, filter, page] of cases) {
    const pageMs = await time(() => listEvents(db, filter, AUDIT_PAGE_SIZE, (page - 1) * AUDIT_PAGE_SIZE));
    const total = await countEvents(db, filter);
    const countMs = await time(() => countEvents(db, filter));
    console.log(`| ${name} | ${pageMs.toFixed(1)} ms | ${total.toLocaleString("en")} | ${countMs.toFixed(1)} ms |`);
  }
} finally {
  await seeder.end();
  await database.close();
  await scratch.drop();
}
