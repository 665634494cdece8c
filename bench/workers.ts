/**
 * POST /api/verify on the built server (`node dist/server/main.js`) with WEB_CONCURRENCY=1 and then 2, on a
 * throwaway PostgreSQL database: 32 connections, random words, a distinct client IP per request
 * (X-Forwarded-For from the trusted loopback), BENCH_SECONDS (default 10) after a 2 s warm-up. Also checks
 * that /metrics, answered by whichever worker, counts the look-ups of every worker.
 *   npm run build && BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench -- workers
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { throwawayPostgres } from "@test/helpers";
import autocannon from "autocannon";
import { freePort } from "../e2e/support";
import { lookupRequest } from "./support/lookups";

const base = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL;
if (!base) {
  console.error("Set BENCH_DATABASE_URL to a PostgreSQL server.");
  process.exit(2);
}
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const TOKEN = "bench-metrics-token-0123";
const main = path.join(fileURLToPath(new URL("..", import.meta.url)), "dist/server/main.js");

function load(url: string, seconds: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        connections: 32,
        duration: seconds,
        requests: [lookupRequest("/api/verify")],
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
}

async function serve(databaseUrl: string, workers: number): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [main], {
    env: {
      PATH: process.env.PATH ?? "",
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "callproof-workers-")),
      WEB_CONCURRENCY: String(workers),
      TRUST_PROXY: "127.0.0.1",
      METRICS_TOKEN: TOKEN,
      LOG_LEVEL: "warn",
      NODE_ENV: "production",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  // Ready when every worker answers: the primary starts them one after the other.
  for (let ready = 0; ready < 20; ) {
    const ok = await fetch(`${url}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    ready = ok ? ready + 1 : 0;
    await new Promise((r) => setTimeout(r, ok ? 50 : 200));
  }
  await new Promise((r) => setTimeout(r, workers * 1500));
  return { url, child };
}

const results: Array<{ workers: number; rps: number; p99: number; counted: number; sent: number }> = [];
for (const workers of [1, 2]) {
  const scratch = await throwawayPostgres(base, "cp_bench_workers");
  const { url, child } = await serve(scratch.url, workers);
  try {
    await load(url, 2);
    const result = await load(url, SECONDS);
    const metrics = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    const counted = [...metrics.matchAll(/^callproof_code_lookups_total\{outcome="\w+"\} (\d+)/gm)].reduce(
      (sum, m) => sum + Number(m[1]),
      0,
    );
    const sent = result.requests.total;
    results.push({ workers, rps: result.requests.average, p99: result.latency.p99, counted, sent });
  } finally {
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await exited;
    await scratch.drop();
  }
}

console.log("| workers | req/s | p99 | look-ups counted by /metrics (incl. warm-up) |");
console.log("|---|---|---|---|");
for (const r of results) console.log(`| ${r.workers} | ${r.rps.toFixed(0)} | ${r.p99} ms | ${r.counted} |`);
const [one, two] = results;
if (one && two) console.log(`\n2 workers ÷ 1 worker: ${(two.rps / one.rps).toFixed(2)}×`);
