/**
 * Verify benchmark: POST /api/verify (one SQL statement) against a baseline route doing the same work
 * as three statements, on the same engine, 32 connections, random words, a distinct client IP per
 * request (X-Forwarded-For behind TRUST_PROXY). The server runs in a child process.
 *   npm run bench -- verify                                                        (PGlite only)
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench -- verify   (PGlite, then PostgreSQL)
 * BENCH_ENGINES=postgres (or pglite) runs one engine only. BENCH_POOLER_URL: PostgreSQL through that PgBouncer.
 * BENCH_SECONDS (default 10) per run; each route runs BENCH_ROUNDS times (default 2), alternating, after a warm-up.
 * After each run the audit chain's checkpoint of that run's rows is drained and timed, and charged to the run.
 * Each route's CPU per look-up (support/cpu.ts: the server process, PostgreSQL's processes when local, the load
 * generator) is printed under it, and the least-work server's total ÷ the product's: the ratio of the work each
 * look-up costs (it swings with the machine's speed between the routes' runs, as req/s does).
 * Beside them, a least-work server (support/least-work.ts: a plain Fastify, three statements with cached plans,
 * no join) on the same database, as issue 36 measures the product against.
 * Targets (issue 19): product ÷ baseline ≥ 1.5x on PGlite and ≥ 1.2x on PostgreSQL, product p99 ≤ 40 ms,
 * (issue 36) product ÷ least-work ≥ 1.2x on PostgreSQL, where the issue asks it (on PGlite the ratio is only
 * printed: 1.00-1.10x in the last runs, where a statement has no network hop to amortise, bench/README.md),
 * in the same run; the script exits 1 when one is missed. The load average is printed with each engine:
 * on the shared 2-core machine absolute figures move a lot, the ratio much less.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { loadavg } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { cpuMeter, formatCpu } from "./support/cpu";
import { checkpoint, lookupRequest, type Run, summarise } from "./support/lookups";

const here = path.dirname(fileURLToPath(import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** Rounds of the three routes, alternating (more rounds even out a busy machine's swings). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONNECTIONS = 32;
const databaseUrl = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL;
const TARGETS = { pglite: 1.5, postgres: 1.2 } as const;
/** issue 36: product ÷ least-work server on PostgreSQL ("clearly ahead of the least-work server on PostgreSQL too") */
const LEAST_WORK_TARGETS: Partial<Record<"pglite" | "postgres", number>> = { postgres: 1.2 };
const P99_MS = 40;
const load1 = () => loadavg()[0]?.toFixed(1);

function run(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(opts, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

async function startServer(
  engine: "pglite" | "postgres",
): Promise<{ url: string; leastWorkUrl: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(here, "support/verify-server.ts")], {
    env: { ...process.env, BENCH_ENGINE: engine, BENCH_DATABASE_URL: databaseUrl ?? "" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  for await (const line of lines) {
    if (line.startsWith("{")) return { ...(JSON.parse(line) as { url: string; leastWorkUrl: string }), child };
  }
  throw new Error("bench server exited before listening");
}

async function stopServer(child: ChildProcess) {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

function load(url: string, route: string, seconds: number): Promise<autocannon.Result> {
  return run({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [lookupRequest(route)],
  });
}

type Row = ReturnType<typeof summarise> & { name: string };
const fmt = (r: Row) =>
  `${r.name.padEnd(34)} ${r.reqs.toFixed(0).padStart(6)} req/s   p50 ${String(r.p50).padStart(3)} ms   p99 ${String(r.p99).padStart(3)} ms   non-2xx/errors ${r.bad}` +
  `   (during the runs ${r.raw.toFixed(0)} req/s; audit chain ${r.chainUs.toFixed(0)} µs/row after them)` +
  (r.cpu ? `\n${"".padEnd(36)}${formatCpu(r.cpu)}` : "");

async function bench(engine: "pglite" | "postgres") {
  const { url, leastWorkUrl, child } = await startServer(engine);
  const meter = cpuMeter(child.pid, engine === "postgres" ? databaseUrl : undefined);
  const loadBefore = load1();
  try {
    // [server, route]: the least-work server is its own plain Fastify beside the product (support/least-work.ts)
    const routes: Record<string, [string, string]> = {
      product: [url, "/api/verify"],
      baseline: [url, "/bench/baseline-verify"],
      prepared: [url, "/bench/baseline-prepared-verify"],
      leastWork: [leastWorkUrl, "/api/verify"],
    };
    for (const [server, route] of Object.values(routes)) await load(server, route, 2);
    await checkpoint(url);
    const results: Record<string, Run[]> = { product: [], baseline: [], prepared: [], leastWork: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, [server, route]] of Object.entries(routes)) {
        const [result, cpu] = await meter.measure(
          () => load(server, route, SECONDS),
          (r) => r.requests.total,
        );
        // The audit chain's checkpoint of this run's rows, charged to this run (see verify-server.ts).
        results[name]?.push({ result, cpu, chain: await checkpoint(url) });
      }
    }
    const summary = (name: string, rs: Run[]): Row => ({ name, ...summarise(rs) });
    const product = summary(`${engine}: POST /api/verify (product)`, results.product ?? []);
    const baseline = summary(`${engine}: naive baseline (3 stmts)`, results.baseline ?? []);
    const prepared = summary(`${engine}: naive, plans cached (info)`, results.prepared ?? []);
    const leastWork = summary(`${engine}: least-work server`, results.leastWork ?? []);
    console.log(fmt(product));
    console.log(fmt(baseline));
    console.log(fmt(prepared));
    console.log(fmt(leastWork));
    const ratio = product.reqs / baseline.reqs;
    const leastRatio = product.reqs / leastWork.reqs;
    const target = TARGETS[engine];
    const leastTarget = LEAST_WORK_TARGETS[engine];
    const ok =
      ratio >= target &&
      (leastTarget === undefined || leastRatio >= leastTarget) &&
      product.p99 <= P99_MS &&
      product.bad === 0;
    const cpuRatio =
      product.cpu && leastWork.cpu
        ? `, least-work CPU ÷ product CPU ${(leastWork.cpu.total / product.cpu.total).toFixed(2)}x`
        : "";
    console.log(
      `${engine}: product/least-work ${leastRatio.toFixed(2)}x${cpuRatio}, product/baseline ${ratio.toFixed(2)}x (product/cached-plans ${(product.reqs / prepared.reqs).toFixed(2)}x), ` +
        `p99 ${product.p99} ms, load average ${loadBefore} → ${load1()}  ` +
        `${ok ? "(target met)" : `(TARGET MISSED: ${leastTarget ? `≥ ${leastTarget}x least work, ` : ""}≥ ${target}x naive, p99 ≤ ${P99_MS} ms, no errors)`}\n`,
    );
    return ok;
  } finally {
    await stopServer(child);
  }
}

console.log(
  `verify benchmark: ${CONNECTIONS} connections, ${SECONDS} s per run, ${ROUNDS} runs per route (reported: mean req/s, worst p50/p99)\n`,
);
// BENCH_ENGINES=postgres (or pglite) runs one engine only
const engines = (process.env.BENCH_ENGINES ?? "pglite,postgres").split(",");
let allOk = true;
if (engines.includes("pglite")) allOk = await bench("pglite");
if (engines.includes("postgres")) {
  if (databaseUrl) allOk = (await bench("postgres")) && allOk;
  else console.log("(set BENCH_DATABASE_URL to also run on PostgreSQL)");
}
process.exitCode = allOk ? 0 : 1;
