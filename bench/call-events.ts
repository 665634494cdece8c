/**
 * Call events at scale (issue 36: "one primary carries ≥ 1,000 successful look-ups a second, and call events
 * likewise"): BENCH_CALLS calls (default 3,000) of as many employees and customers, spread over 10
 * organisations (an organisation may start 600 calls a minute, a key make 600 requests a minute), go through
 * the dialler's and the organisation's app's part of the integration API in four runs, 32 connections, a
 * client address per request:
 *   1. start    POST /api/v1/calls                    {employeeEmail, customerRef, direction: "outbound"}
 *   2. check    POST /api/v1/calls/:id/customer-check
 *   3. answer   POST /api/v1/customer-checks/:id      {answer: "confirmed"}   (a checks:answer key)
 *   4. end      POST /api/v1/calls/:id/end
 * Each writes and publishes an event (call.started, customer-check.requested, customer-check.answered,
 * call.ended). BENCH_STREAMS (default 100) of those customers have the call-status component's stream open
 * (a status token each), and their employees the dashboard's call stream (from the start's end on); for each
 * run the bench reports its rate and p99, CPU per request (support/cpu.ts), and how long after each request's
 * answer the change reached the open streams (p99). Each run is charged the audit chain of its own events
 * (/bench/checkpoint after it, as verify-success does). Both paths are warmed first on two other organisations.
 *   npm run bench -- call-events                                                        (PGlite)
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench -- call-events   (PostgreSQL)
 * Targets: each run ≥ 1,000 requests a second with p99 ≤ 40 ms and none refused, live changes ≤ 250 ms p99.
 * Exits 1 when missed. The server runs in a child process (support/call-events-server.ts).
 */
import { spawn } from "node:child_process";
import { loadavg } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { openEventStream, type StreamEvent } from "@test/event-stream";
import autocannon from "autocannon";
import type { EventsOrg } from "./support/call-events-server";
import { type CpuPerRequest, cpuMeter, formatCpu } from "./support/cpu";
import { checkpoint } from "./support/lookups";

const here = path.dirname(fileURLToPath(import.meta.url));
const CALLS = Number(process.env.BENCH_CALLS ?? 3000);
const ORGS = 10;
const WARM_ORGS = 2;
const PER_ORG = Math.ceil(CALLS / ORGS);
const STREAMS = Math.min(CALLS, Number(process.env.BENCH_STREAMS ?? 100));
const CONNECTIONS = 32;
const RATE = 1000;
const P99_MS = 40;
const LIVE_P99_MS = 250;
const databaseUrl = process.env.BENCH_DATABASE_URL;
const engine = databaseUrl ? "postgres" : "pglite";
const load1 = () => loadavg()[0]?.toFixed(1);

async function startServer() {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(here, "support/call-events-server.ts")], {
    env: {
      ...process.env,
      BENCH_ENGINE: engine,
      BENCH_ORGS: String(ORGS + WARM_ORGS),
      BENCH_EMPLOYEES: String(PER_ORG),
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  for await (const line of lines)
    if (line.startsWith("{")) return { ...(JSON.parse(line) as { url: string; orgs: EventsOrg[] }), child };
  throw new Error("bench server exited before listening");
}

const p99 = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? Number.NaN;
};

let ipSeq = 0;
const freshIp = () => {
  const n = ++ipSeq;
  return `10.${100 + ((n >> 16) & 63)}.${(n >> 8) & 255}.${n & 255}`;
};

/** One call of the run: its organisation, employee and customer, and what the runs learn (ids, answer times). */
type Call = {
  org: EventsOrg;
  employee: { email: string; cookie: string };
  customerRef: string;
  id?: string;
  checkId?: string;
  answeredAt: Partial<Record<Step, number>>;
};
type Step = "start" | "check" | "answer" | "end";

const { url, orgs, child } = await startServer();
const meter = cpuMeter(child.pid, databaseUrl);

/** The calls of organisations `from`…`from + count - 1`, `perOrg` each, taken in turn from each organisation. */
function callsOf(from: number, count: number, perOrg: number, tag: string): Call[] {
  return Array.from({ length: count * perOrg }, (_, k) => {
    const org = orgs[from + (k % count)] as EventsOrg;
    const i = Math.floor(k / count);
    return {
      org,
      employee: org.employees[i] as EventsOrg["employees"][number],
      customerRef: `${tag}-${k}`,
      answeredAt: {},
    };
  });
}

/** The request of a step for one call: path, key and body. */
function request(step: Step, call: Call, k: number) {
  const writer = call.org.writers[k % call.org.writers.length] as string;
  switch (step) {
    case "start":
      return {
        path: "/api/v1/calls",
        key: writer,
        body: { employeeEmail: call.employee.email, customerRef: call.customerRef, direction: "outbound" },
      };
    case "check":
      return { path: `/api/v1/calls/${call.id}/customer-check`, key: writer, body: undefined };
    case "answer":
      return {
        path: `/api/v1/customer-checks/${call.checkId}`,
        key: call.org.answerers[k % call.org.answerers.length] as string,
        body: { answer: "confirmed" },
      };
    case "end":
      return { path: `/api/v1/calls/${call.id}/end`, key: writer, body: undefined };
  }
}

/** One step for every call (32 connections, each call once): the result, its true duration, the answers. */
async function runStep(step: Step, calls: Call[]) {
  let k = 0;
  let lastAnswer = 0;
  const started = performance.now();
  const result = await new Promise<autocannon.Result>((resolve, reject) =>
    autocannon(
      {
        url,
        connections: CONNECTIONS,
        amount: calls.length,
        requests: [
          {
            method: "POST",
            setupRequest: (req, context) => {
              const i = k++;
              const call = calls[i % calls.length] as Call;
              context.call = call;
              const r = request(step, call, i);
              return {
                ...req,
                path: r.path,
                headers: {
                  authorization: `Bearer ${r.key}`,
                  "x-forwarded-for": freshIp(),
                  ...(r.body ? { "content-type": "application/json" } : {}),
                },
                body: r.body ? JSON.stringify(r.body) : undefined,
              };
            },
            onResponse: (status, body, context) => {
              const at = performance.now();
              lastAnswer = at;
              const call = context.call as Call;
              if (status >= 300) return;
              call.answeredAt[step] = at;
              if (step === "start") call.id = (JSON.parse(body) as { id: string }).id;
              if (step === "check") call.checkId = (JSON.parse(body) as { id: string }).id;
            },
          },
        ],
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    ),
  );
  return { result, seconds: (lastAnswer - started) / 1000 };
}

type Stream = Awaited<ReturnType<typeof openEventStream<Record<string, unknown>>>>;

async function open(path: string, headers: Record<string, string>, first: string): Promise<Stream> {
  const stream = await openEventStream<Record<string, unknown>>(new URL(path, url).toString(), {
    accept: "text/event-stream",
    "x-forwarded-for": freshIp(),
    ...headers,
  });
  if (!stream.res.ok) throw new Error(`stream ${path}: ${stream.res.status} ${await stream.res.text()}`);
  if (!(await stream.next(first))) throw new Error(`stream ${path} ended before its first ${first}`);
  return stream;
}

/** The component's stream of one customer (a status token from the organisation's backend). */
async function componentStream(call: Call): Promise<Stream> {
  const res = await fetch(new URL("/api/v1/customers/status-token", url), {
    method: "POST",
    headers: {
      authorization: `Bearer ${call.org.reader}`,
      "content-type": "application/json",
      "x-forwarded-for": freshIp(),
    },
    body: JSON.stringify({ customerRef: call.customerRef, origin: call.org.origin }),
  });
  if (res.status !== 201) throw new Error(`status token: ${res.status} ${await res.text()}`);
  const { token } = (await res.json()) as { token: string };
  return open("/api/call-status/stream", { authorization: `Bearer ${token}`, origin: call.org.origin }, "state");
}

type Test = (e: StreamEvent<Record<string, unknown>>) => boolean;
const state =
  (test: (data: { calling: unknown[]; check: unknown }) => boolean): Test =>
  (e) =>
    e.event === "state" && test(e.data as { calling: unknown[]; check: unknown });
const check =
  (status: string): Test =>
  (e) =>
    e.event === "check" && e.data.status === status;
/** What each step changes on the component's and on the dashboard's stream. */
const seen: Record<Step, { component: Test; dashboard: Test | null }> = {
  start: { component: state((d) => d.calling.length > 0), dashboard: null },
  check: { component: state((d) => d.check !== null), dashboard: check("pending") },
  answer: { component: state((d) => d.check === null), dashboard: check("confirmed") },
  end: { component: state((d) => d.calling.length === 0), dashboard: (e) => e.event === "call" },
};

/** For each watched call: from its step's answer to the first event from `from` on that shows the change. */
function liveMs(watched: Call[], streams: Map<Call, Stream>, from: Map<Call, number>, step: Step, test: Test) {
  const times: number[] = [];
  let missing = 0;
  for (const call of watched) {
    const stream = streams.get(call);
    const answered = call.answeredAt[step];
    const event = stream?.events.slice(from.get(call) ?? 0).find(test);
    if (!stream || answered === undefined || !event) missing++;
    else times.push(event.at - answered);
  }
  return { times, missing };
}

/** Until every watched stream has shown the step's change (or 5 s). */
async function settle(watched: Call[], streams: Map<Call, Stream>, from: Map<Call, number>, test: Test) {
  const all = Promise.all(watched.map((call) => streams.get(call)?.until(test, from.get(call) ?? 0)));
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([all, new Promise((resolve) => (timer = setTimeout(resolve, 5000)))]);
  clearTimeout(timer);
}

type StepFigures = {
  step: Step;
  rate: number;
  during: number;
  p99: number;
  bad: number;
  chainMs: number;
  cpu: CpuPerRequest | null;
  component: { times: number[]; missing: number };
  dashboard: { times: number[]; missing: number } | null;
};

/** The four steps for `calls`, with `watchCount` of them watched on both streams. */
async function steps(calls: Call[], watchCount: number): Promise<StepFigures[]> {
  const watched = Array.from(
    { length: watchCount },
    (_, i) => calls[Math.floor((i * calls.length) / watchCount)] as Call,
  );
  const components = new Map(await Promise.all(watched.map(async (c) => [c, await componentStream(c)] as const)));
  const dashboards = new Map<Call, Stream>();
  const figures: StepFigures[] = [];
  try {
    for (const step of ["start", "check", "answer", "end"] as const) {
      if (step === "check") {
        for (const call of watched) {
          if (!call.id) throw new Error("a watched call did not start");
          dashboards.set(
            call,
            await open(`/api/calls/${call.id}/events`, { cookie: call.employee.cookie }, "colleague"),
          );
        }
      }
      const mark = (streams: Map<Call, Stream>) => new Map([...streams].map(([c, s]) => [c, s.events.length]));
      const fromComponent = mark(components);
      const fromDashboard = mark(dashboards);
      await checkpoint(url);
      const [{ result, seconds }, cpu] = await meter.measure(
        () => runStep(step, calls),
        (r) => r.result.requests.total,
      );
      const chain = await checkpoint(url);
      const test = seen[step];
      await settle(watched, components, fromComponent, test.component);
      if (test.dashboard) await settle(watched, dashboards, fromDashboard, test.dashboard);
      const done = calls.filter((c) => c.answeredAt[step] !== undefined).length;
      figures.push({
        step,
        rate: done / (seconds + chain.ms / 1000),
        during: done / seconds,
        p99: result.latency.p99,
        bad: result.non2xx + result.errors + result.timeouts,
        chainMs: chain.ms,
        cpu,
        component: liveMs(watched, components, fromComponent, step, test.component),
        dashboard: test.dashboard ? liveMs(watched, dashboards, fromDashboard, step, test.dashboard) : null,
      });
    }
  } finally {
    await Promise.all([...components.values(), ...dashboards.values()].map((s) => s.close()));
  }
  return figures;
}

try {
  // Warm-up (not counted): the four steps for two other organisations' calls, so that no timed run pays
  // for preparing its statements or compiling the code.
  await steps(callsOf(ORGS, WARM_ORGS, PER_ORG, "W"), 20);
  const figures = await steps(callsOf(0, ORGS, PER_ORG, "C"), STREAMS);
  const total = ORGS * PER_ORG;
  console.log(
    `${engine}: ${total} calls of as many employees and customers in ${ORGS} organisations, ${CONNECTIONS} connections; ` +
      `${STREAMS} customers' component streams and their employees' call streams open`,
  );
  let ok = true;
  const live = (l: { times: number[]; missing: number }) =>
    `p99 ${p99(l.times).toFixed(0)} ms${l.missing ? ` (${l.missing} of ${STREAMS} never shown)` : ""}`;
  for (const f of figures) {
    const stepOk =
      f.rate >= RATE &&
      f.p99 <= P99_MS &&
      f.bad === 0 &&
      f.component.missing === 0 &&
      p99(f.component.times) <= LIVE_P99_MS &&
      (!f.dashboard || (f.dashboard.missing === 0 && p99(f.dashboard.times) <= LIVE_P99_MS));
    ok &&= stepOk;
    console.log(
      `  ${f.step.padEnd(7)} ${f.rate.toFixed(0).padStart(5)}/s   p99 ${String(f.p99).padStart(3)} ms   non-2xx/errors ${f.bad}   ` +
        `(during the run ${f.during.toFixed(0)}/s, audit chain ${f.chainMs.toFixed(0)} ms after it)   ` +
        `live: component ${live(f.component)}` +
        (f.dashboard ? `, dashboard ${live(f.dashboard)}` : "") +
        (f.cpu ? `\n          ${formatCpu(f.cpu, "request")}` : "") +
        (stepOk ? "" : "   MISSED"),
    );
  }
  console.log(
    `  load average ${load1()}  ` +
      (ok
        ? "(targets met)"
        : `(TARGET MISSED: ≥ ${RATE}/s, p99 ≤ ${P99_MS} ms, none refused, live ≤ ${LIVE_P99_MS} ms p99 on every stream)`),
  );
  process.exitCode = ok ? 0 : 1;
} finally {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}
