/**
 * Calls benchmark (issue 34, contract "Calls", Speed):
 *  1. `POST /api/v1/customers/call-status` (a calls:read key, a random customer of 1,000, some with calls)
 *     against `POST /api/verify` (the widget's look-up, random words) on the same engine and server,
 *     32 connections, runs in turn (A B, B A, …). Goal: call-status serves at least as many requests a second, p99 ≤ 40 ms.
 *  2. Answer → dashboard: the employee's `GET /api/calls/:id/events` (session cookie) is open, the check is
 *     pending; the time from sending `POST /api/v1/customer-checks/:id` (checks:answer key) to the `check`
 *     event saying `confirmed`. Goal p99 ≤ 250 ms.
 *  3. Call start → component: the component's `GET /api/call-status/stream` (status token, Origin) is open;
 *     the time from sending `POST /api/v1/calls` (outbound) to the `state` event naming the call. Goal p99 ≤ 250 ms.
 *   npm run bench -- calls                                                              (PGlite)
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench -- calls (PGlite, then PostgreSQL)
 * BENCH_ENGINES=pglite|postgres runs one; BENCH_SECONDS (default 10) per run, BENCH_ROUNDS (default 2),
 * BENCH_SAMPLES (default 100) per latency. The script exits 1 when a goal is missed.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { loadavg } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { openEventStream, type StreamEvent } from "@test/event-stream";
import autocannon from "autocannon";
import { cpuMeter, formatCpu } from "./support/cpu";
import { checkpoint, lookupRequest, type Run, summarise } from "./support/lookups";

const here = path.dirname(fileURLToPath(import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 100);
const CONNECTIONS = 32;
const CUSTOMERS = 1_000;
const SEEDED_CALLS = 150;
const P99_MS = 40;
const LATENCY_P99_MS = 250;
const databaseUrl = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL;
const load1 = () => loadavg()[0]?.toFixed(1);

type Server = {
  url: string;
  origin: string;
  keys: { reader: string; answerer: string; diallers: string[]; load: string[] };
  employees: Array<{ id: number; email: string; cookie: string }>;
  child: ChildProcess;
};

async function startServer(engine: "pglite" | "postgres"): Promise<Server> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(here, "support/calls-server.ts")], {
    env: {
      ...process.env,
      BENCH_ENGINE: engine,
      BENCH_DATABASE_URL: databaseUrl ?? "",
      BENCH_EMPLOYEES: String(SEEDED_CALLS + 2 * SAMPLES + 10),
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  for await (const line of lines) {
    if (line.startsWith("{")) return { ...(JSON.parse(line) as Omit<Server, "child">), child };
  }
  throw new Error("bench server exited before listening");
}

async function stopServer(child: ChildProcess) {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

let ipSeq = 0;
let diallerTurn = 0;
/** The dialler's keys in turn (each may make 600 requests a minute). */
const dialler = (server: Server) => server.keys.diallers[diallerTurn++ % server.keys.diallers.length]!;
const freshIp = () => {
  const n = ++ipSeq;
  return `10.200.${(n >> 8) & 255}.${n & 255}`;
};

/** A call of the organisation's integration (JSON, the key, an address of its own); throws on an error status. */
async function v1<T>(server: Server, key: string, route: string, body?: object, method = "POST"): Promise<T> {
  const res = await fetch(new URL(route, server.url), {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      "x-forwarded-for": freshIp(),
      ...(body ? { "content-type": "application/json" } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

type Event = StreamEvent<unknown>;

/** An event stream over fetch (the tests' reader), whose `until` gives up after 10 s. */
async function openStream(url: string, headers: Record<string, string>) {
  const stream = await openEventStream<unknown>(url, { accept: "text/event-stream", ...headers });
  if (!stream.res.ok) throw new Error(`stream ${url}: ${stream.res.status} ${await stream.res.text()}`);
  return {
    /** the first event from index `from` on that passes `test` (within 10 s) */
    async until(from: number, test: (e: Event) => boolean): Promise<Event> {
      const giveUp = new AbortController();
      const found = await Promise.race([
        stream.until(test, from),
        sleep(10_000, undefined, { signal: giveUp.signal }).catch(() => undefined),
      ]).finally(() => giveUp.abort());
      if (!found) throw new Error(`no such event on ${url}: ${JSON.stringify(stream.events)}`);
      return found;
    },
    get count() {
      return stream.events.length;
    },
    close: () => stream.close(),
  };
}

const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};
const describe = (xs: number[]) =>
  `p50 ${percentile(xs, 50).toFixed(1)} ms   p99 ${percentile(xs, 99).toFixed(1)} ms   max ${Math.max(...xs).toFixed(1)} ms   (${xs.length} samples)`;

function run(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => autocannon(opts, (err, result) => (err ? reject(err) : resolve(result))));
}

/**
 * Call-status look-ups for autocannon: a random customer of CUSTOMERS, an address of its own, the keys in turn
 * (each key may make 600 requests a minute).
 */
function callStatusRequest(keys: string[]): autocannon.Request {
  let turn = 0;
  return {
    method: "POST",
    path: "/api/v1/customers/call-status",
    setupRequest: (req) => ({
      ...req,
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${keys[turn++ % keys.length]}`,
        "x-forwarded-for": freshIp(),
      },
      body: JSON.stringify({ customerRef: `C-${Math.floor(Math.random() * CUSTOMERS)}` }),
    }),
  };
}

async function throughput(server: Server, engine: string): Promise<boolean> {
  // Some customers with calls: active outbound, ended outbound, inbound.
  for (let i = 0; i < SEEDED_CALLS; i++) {
    const employee = server.employees[i]!;
    const call = await v1<{ id: string }>(server, dialler(server), "/api/v1/calls", {
      employeeEmail: employee.email,
      customerRef: `C-${i * 6}`,
      direction: i % 3 === 2 ? "inbound" : "outbound",
    });
    if (i % 3 === 1) await v1(server, dialler(server), `/api/v1/calls/${call.id}/end`);
  }
  const routes = {
    "POST /api/v1/customers/call-status": callStatusRequest(server.keys.load),
    "POST /api/verify": lookupRequest("/api/verify"),
  };
  const load = (request: autocannon.Request, seconds: number) =>
    run({ url: server.url, connections: CONNECTIONS, duration: seconds, requests: [request] });
  for (const request of Object.values(routes)) await load(request, 2);
  await checkpoint(server.url);
  const meter = cpuMeter(server.child.pid, engine === "postgres" ? databaseUrl : undefined);
  const results: Record<string, Run[]> = Object.fromEntries(Object.keys(routes).map((n) => [n, []]));
  // In turn, and in the other order each round (A B, B A, …): a run leaves work behind that lands in the next
  // one's time (autovacuum follows its writes). The audit chain's checkpoint of a run's events (every look-up
  // writes one; a call-status writes none) is drained after the run and charged to it, as bench verify does:
  // its 20 s turns otherwise fall in whichever run is going on.
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? Object.entries(routes) : Object.entries(routes).reverse();
    for (const [name, request] of order) {
      const [result, cpu] = await meter.measure(
        () => load(request, SECONDS),
        (r) => r.requests.total,
      );
      results[name]?.push({ result, cpu, chain: await checkpoint(server.url) });
    }
  }
  const rows = Object.entries(results).map(([name, rs]) => ({ name, ...summarise(rs) }));
  for (const r of rows)
    console.log(
      `${engine}: ${r.name.padEnd(36)} ${r.reqs.toFixed(0).padStart(6)} req/s   p50 ${r.p50} ms   p99 ${r.p99} ms   non-2xx/errors ${r.bad}` +
        `   (during the runs ${r.raw.toFixed(0)} req/s; audit chain ${r.chainMs.toFixed(0)} ms after them)` +
        (r.cpu ? `\n${"".padEnd(engine.length + 2)}${formatCpu(r.cpu, "request")}` : ""),
    );
  const [status, verify] = rows;
  const ok = !!status && !!verify && status.reqs >= verify.reqs && status.p99 <= P99_MS && status.bad === 0;
  console.log(
    `${engine}: call-status/verify ${((status?.reqs ?? 0) / (verify?.reqs ?? 1)).toFixed(2)}x, p99 ${status?.p99} ms ` +
      `${ok ? "(goal met)" : `(GOAL MISSED: ≥ 1x, p99 ≤ ${P99_MS} ms, no errors)`}`,
  );
  return ok;
}

/** Answer → dashboard: from sending the answer to the employee's stream saying `confirmed`. */
async function answerToDashboard(server: Server): Promise<number[]> {
  const times: number[] = [];
  for (let s = 0; s < SAMPLES; s++) {
    const employee = server.employees[SEEDED_CALLS + s]!;
    const call = await v1<{ id: string }>(server, dialler(server), "/api/v1/calls", {
      employeeEmail: employee.email,
      customerRef: `A-${s}`,
      direction: "outbound",
    });
    const stream = await openStream(new URL(`/api/calls/${call.id}/events`, server.url).toString(), {
      cookie: employee.cookie,
    });
    const check = await v1<{ id: string }>(server, dialler(server), `/api/v1/calls/${call.id}/customer-check`);
    const isCheck = (status: string) => (e: Event) =>
      e.event === "check" &&
      (e.data as { id?: string; status?: string }).id === check.id &&
      (e.data as { status?: string }).status === status;
    await stream.until(0, isCheck("pending"));
    const mark = stream.count;
    const sent = performance.now();
    await v1(server, server.keys.answerer, `/api/v1/customer-checks/${check.id}`, { answer: "confirmed" });
    const seen = await stream.until(mark, isCheck("confirmed"));
    times.push(seen.at - sent);
    await stream.close();
    await v1(server, dialler(server), `/api/v1/calls/${call.id}/end`);
  }
  return times;
}

/** Call start → component: from sending POST /api/v1/calls to the component's stream naming the call. */
async function startToComponent(server: Server): Promise<number[]> {
  const times: number[] = [];
  for (let s = 0; s < SAMPLES; s++) {
    const employee = server.employees[SEEDED_CALLS + SAMPLES + s]!;
    const customerRef = `S-${s}`;
    const { token } = await v1<{ token: string }>(server, server.keys.reader, "/api/v1/customers/status-token", {
      customerRef,
      origin: server.origin,
    });
    const stream = await openStream(new URL("/api/call-status/stream", server.url).toString(), {
      authorization: `Bearer ${token}`,
      origin: server.origin,
      "x-forwarded-for": freshIp(),
    });
    await stream.until(0, (e) => e.event === "state");
    const mark = stream.count;
    const sent = performance.now();
    const call = await v1<{ id: string }>(server, dialler(server), "/api/v1/calls", {
      employeeEmail: employee.email,
      customerRef,
      direction: "outbound",
    });
    const seen = await stream.until(
      mark,
      (e) => e.event === "state" && ((e.data as { calling?: unknown[] }).calling?.length ?? 0) > 0,
    );
    times.push(seen.at - sent);
    await stream.close();
    await v1(server, dialler(server), `/api/v1/calls/${call.id}/end`);
  }
  return times;
}

async function bench(engine: "pglite" | "postgres"): Promise<boolean> {
  const server = await startServer(engine);
  const before = load1();
  try {
    let ok = await throughput(server, engine);
    const answer = await answerToDashboard(server);
    console.log(`${engine}: answer → dashboard event        ${describe(answer)}`);
    const start = await startToComponent(server);
    console.log(`${engine}: call start → component stream   ${describe(start)}`);
    ok = ok && percentile(answer, 99) <= LATENCY_P99_MS && percentile(start, 99) <= LATENCY_P99_MS;
    console.log(`${engine}: load average ${before} → ${load1()}  ${ok ? "(goals met)" : "(A GOAL WAS MISSED)"}\n`);
    return ok;
  } finally {
    await stopServer(server.child);
  }
}

console.log(
  `calls benchmark: ${CONNECTIONS} connections, ${SECONDS} s per run, ${ROUNDS} runs per route; ${SAMPLES} latency samples\n`,
);
const engines = (process.env.BENCH_ENGINES ?? "pglite,postgres").split(",");
let allOk = true;
if (engines.includes("pglite")) allOk = await bench("pglite");
if (engines.includes("postgres")) {
  if (databaseUrl) allOk = (await bench("postgres")) && allOk;
  else console.log("(set BENCH_DATABASE_URL to also run on PostgreSQL)");
}
process.exitCode = allOk ? 0 : 1;
