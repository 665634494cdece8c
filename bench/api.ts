/**
 * The integration API: `POST /api/v1/codes` throughput, and how many events a second the audit cursor
 * (`GET /api/v1/audit`) serves, on PGlite (on disk, as `npm start` runs it) or PostgreSQL.
 *   npm run bench -- api                                                        # PGlite
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench -- api   # PostgreSQL
 * BENCH_SECONDS (default 5) per load run; AUDIT_EVENTS (default 50,000) seeded for the cursor.
 *
 * The load generator (autocannon) runs in this same process as the server: figures are a floor.
 * Keys are limited to 600 calls a minute and employees to 3 codes a minute, so the load spreads over
 * 5 organisations × 20 keys × 400 employees (what a large contact centre would look like).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { type Database, openDatabase } from "@server/db/client";
import { throwawayPostgres } from "@test/helpers";
import autocannon from "autocannon";
import { sql } from "drizzle-orm";
import { benchApp } from "./support/bench-app";
import { seedOrganisation } from "./support/seed-organisation";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const AUDIT_EVENTS = Number(process.env.AUDIT_EVENTS ?? 50_000);
const ORGS = 5;
const KEYS_PER_ORG = 20;
const EMPLOYEES_PER_ORG = 400;
const CONNECTIONS = 16;

const base = process.env.BENCH_DATABASE_URL;
const dataDir = mkdtempSync(path.join(tmpdir(), "callproof-bench-api-"));
let database: Database;
let drop = async () => {};
if (base) {
  const scratch = await throwawayPostgres(base, "cp_bench_api");
  database = await openDatabase({ databaseUrl: scratch.url });
  drop = scratch.drop;
} else {
  database = await openDatabase({ dataDir: path.join(dataDir, "db") });
}
const engine = base ? "PostgreSQL" : "PGlite";

const { config, app } = await benchApp(database, dataDir);
const url = await app.listen({ port: 0, host: "127.0.0.1" });

function run(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(opts, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

try {
  // ---- seed: organisations, their superusers, employees and keys (the keys' HMAC as the product stores it) ----
  const now = new Date();
  const orgs: { id: number; keys: string[]; employees: string[] }[] = [];
  for (let o = 0; o < ORGS; o++) {
    const domain = `bench${o}-${randomBytes(3).toString("hex")}.test`;
    orgs.push(
      await seedOrganisation(database, config.appSecret, {
        companyName: `Bench ${o}`,
        domain,
        employees: EMPLOYEES_PER_ORG,
        keys: KEYS_PER_ORG,
        now,
      }),
    );
  }

  // ---- POST /api/v1/codes ----
  let n = 0;
  const body = () => {
    const i = n++;
    const org = orgs[i % ORGS] as (typeof orgs)[number];
    const j = Math.floor(i / ORGS);
    return {
      key: org.keys[j % KEYS_PER_ORG] as string,
      body: JSON.stringify({ employeeEmail: org.employees[j % EMPLOYEES_PER_ORG] }),
    };
  };
  const issue = await run({
    url,
    connections: CONNECTIONS,
    duration: SECONDS,
    requests: [
      {
        method: "POST",
        path: "/api/v1/codes",
        setupRequest: (req) => {
          const next = body();
          return {
            ...req,
            headers: {
              "content-type": "application/json",
              authorization: `Bearer ${next.key}`,
              "x-forwarded-for": `10.9.${n % 250}.${n % 200}`,
            },
            body: next.body,
          };
        },
      },
    ],
  });
  const created = issue.statusCodeStats?.["201"]?.count ?? 0;
  console.log(
    `${engine}: POST /api/v1/codes, ${CONNECTIONS} connections, ${SECONDS} s: ${Math.round(created / SECONDS)} codes/s ` +
      `(${created} issued, non-2xx ${issue.non2xx}), p50 ${issue.latency.p50} ms, p99 ${issue.latency.p99} ms`,
  );

  // ---- GET /api/v1/audit: seed events for one organisation, then follow the cursor to the end ----
  const target = orgs[0] as (typeof orgs)[number];
  await database.db.execute(sql`
    insert into audit_log (at, organisation_id, action, target, ip, outcome, detail)
    select now(), ${target.id}::int, 'code.verify', g::text, '198.51.100.' || (g % 250), 'success',
      jsonb_build_object('origin', 'https://bench.test', 'reason', 'verified')
    from generate_series(1, ${AUDIT_EVENTS}) g`);
  const auth = { authorization: `Bearer ${target.keys[0]}`, "x-forwarded-for": "10.8.0.1" };
  let started = performance.now();
  const first = await fetch(`${url}/api/v1/audit?limit=1`, { headers: auth });
  if (first.status !== 200) throw new Error(`audit: ${first.status} ${await first.text()}`);
  const positionMs = performance.now() - started;
  started = performance.now();
  let after = "0";
  let served = 0;
  let pages = 0;
  for (;;) {
    const res = await fetch(`${url}/api/v1/audit?after=${after}&limit=1000`, { headers: auth });
    const page = (await res.json()) as { items: unknown[]; next: string };
    served += page.items.length;
    pages++;
    after = page.next;
    if (page.items.length < 1000) break;
  }
  const readS = (performance.now() - started) / 1000;
  console.log(
    `${engine}: GET /api/v1/audit: positioning ${AUDIT_EVENTS} new events on the first page took ${Math.round(positionMs)} ms; ` +
      `then ${served} events in ${pages} pages of 1000: ${Math.round(served / readS)} events/s served`,
  );
  console.log(
    `load average: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
} finally {
  await app.close();
  await database.close();
  await drop();
  rmSync(dataDir, { recursive: true, force: true });
}
