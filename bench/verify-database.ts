/**
 * The database's side of a failed look-up, without HTTP: PostgreSQL's CPU per look-up (support/cpu.ts, its
 * processes on this machine) of the product's look-up statement (`lookUpAndVerify`, a made-up code, a client
 * of its own each) against the least-work server's three statements (support/least-work.ts), alternating.
 * The load generator's own CPU is left out, so the figures move much less than `verify`'s req/s.
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench -- verify-database
 * BENCH_SECONDS (default 5) per run, BENCH_ROUNDS (default 4) of each, BENCH_CONCURRENCY (default 4) look-ups
 * at a time; BENCH_IPV6=1 looks up from IPv6 clients (each also counts its /48's hit).
 */
import { randomBytes } from "node:crypto";
import { openDatabase } from "@server/db/client";
import { lookUpAndVerify } from "@server/features/codes/repository";
import { drawWords } from "@server/features/codes/words";
import { IDENTITY_CODE } from "@shared/constants";
import { throwawayPostgres } from "@test/helpers";
import { cpuMeter } from "./support/cpu";
import { leastWorkLookUp } from "./support/least-work";
import { seedBench } from "./support/naive-verify";

const base = process.env.BENCH_DATABASE_URL;
if (!base) throw new Error("verify-database needs BENCH_DATABASE_URL (a PostgreSQL server on this machine)");
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const IPV6 = process.env.BENCH_IPV6 === "1";
const APP_SECRET = randomBytes(32).toString("hex");

const scratch = await throwawayPostgres(base, "cp_bench");
const database = await openDatabase({ databaseUrl: scratch.url });
await seedBench(database);
const db = database.db;

let seq = 0;
/** A client of its own: an IPv4 address, or an IPv6 /64 in a /48 of its own. */
function client() {
  const n = ++seq;
  return IPV6
    ? { ip: `2001:db8:${n.toString(16)}::1`, network: `2001:db8:${n.toString(16)}::/48` }
    : { ip: `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`, network: null };
}
const window = IDENTITY_CODE.lookupWindowMs;

async function product() {
  const { ip, network } = client();
  await lookUpAndVerify(db, {
    limit: { key: `codes-verify:ip:${ip}`, limit: IDENTITY_CODE.lookupsPerWindow, windowMs: window },
    networkLimit: network
      ? { key: `codes-verify:net:${network}`, limit: IDENTITY_CODE.lookupsPerNetworkPerWindow, windowMs: window }
      : null,
    codeHashes: [randomBytes(32).toString("base64url")],
    now: new Date(),
    scope: "any",
    origin: null,
    originHost: null,
    ip,
  });
}
async function leastWork() {
  await leastWorkLookUp(db, APP_SECRET, { words: drawWords().join(" "), ip: client().ip, origin: null });
}

async function load(lookUp: () => Promise<void>) {
  let n = 0;
  const end = Date.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < end) {
        await lookUp();
        n++;
      }
    }),
  );
  return n;
}

const meter = cpuMeter(process.pid, base);
for (let i = 0; i < 300; i++) {
  await product();
  await leastWork();
}
const runs = { product: [] as number[], leastWork: [] as number[] };
console.log(
  `verify-database: ${IPV6 ? "IPv6" : "IPv4"} clients, ${CONCURRENCY} at a time, ${SECONDS} s × ${ROUNDS} each`,
);
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, lookUp] of [
    ["product", product],
    ["leastWork", leastWork],
  ] as const) {
    const [n, cpu] = await meter.measure(
      () => load(lookUp),
      (n) => n,
    );
    if (cpu?.postgres == null) throw new Error("PostgreSQL's CPU cannot be read here (not on this machine?)");
    runs[name].push(cpu.postgres);
    console.log(
      `  ${name === "product" ? "product   " : "least work"} ${(n / SECONDS).toFixed(0).padStart(5)} look-ups/s   PostgreSQL ${cpu.postgres.toFixed(0)} µs per look-up`,
    );
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const [p, l] = [median(runs.product), median(runs.leastWork)];
console.log(
  `PostgreSQL's CPU per failed look-up (median): product ${p.toFixed(0)} µs, least work ${l.toFixed(0)} µs; least work ÷ product ${(l / p).toFixed(2)}x`,
);
await database.close();
await scratch.drop();
