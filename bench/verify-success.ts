/**
 * Successful look-ups (issue 36): BENCH_CODES codes (default 3,000) issued through POST /api/v1/codes for
 * BENCH_CODES / 3 employees (each may have 3 a minute), a status stream open (GET /api/v1/codes/{id}/events)
 * for BENCH_STREAMS of them (default 100, one per employee, spread over the run), then each code looked up
 * once through POST /api/verify, 32 connections, a client IP per request; then as many failed look-ups (random words)
 * the same way, in the same run. Reports successful and failed look-ups per second with their p99, and
 * the live-status p99: from the look-up's answer to the stream's `verified` event, and each run's CPU per
 * look-up (support/cpu.ts). Each timed run is charged the audit chain of its own events (drained through
 * /bench/checkpoint after it, as verify and calls do); the issuing's are chained before the first.
 *   npm run bench -- verify-success                                                        (PGlite)
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench -- verify-success   (PostgreSQL)
 * With BENCH_WEBHOOK=1 the organisation also has a webhook endpoint taking `code.verified`, a receiver in
 * this process, and the run reports when each verified code's delivery arrived (p99 after the answer).
 * The server runs in a child process (support/success-server.ts). Targets on PostgreSQL: ≥ 1,000
 * successful/s, ≥ 0.5× the failed rate, p99 ≤ 40 ms for both; live status (and webhooks) ≤ 250 ms p99.
 * Exits 1 when missed.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { cpuMeter, formatCpu } from "./support/cpu";
import { checkpoint, lookupRequest } from "./support/lookups";

const here = path.dirname(fileURLToPath(import.meta.url));
const CODES = Number(process.env.BENCH_CODES ?? 3000);
const EMPLOYEES = Math.ceil(CODES / 3);
/**
 * Employees of the warm-up only (3 codes each): the successful path is prepared on the server's connections
 * and compiled by V8 before it is timed. With 64 (192 successes) the timed run's first 0.3-0.7 s still
 * answered slower than the rest (bench/README.md, verify-success, 2026-11-28, night).
 */
const WARM_EMPLOYEES = 400;
const STREAMS = Math.min(EMPLOYEES, Number(process.env.BENCH_STREAMS ?? 100));
const CONNECTIONS = 32;
const databaseUrl = process.env.BENCH_DATABASE_URL;
const engine = databaseUrl ? "postgres" : "pglite";
const load1 = () => loadavg()[0]?.toFixed(1);

function run(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(opts, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

/**
 * `run` with a fixed `amount` of requests, and its true duration: from the first request sent to the last answer.
 * (autocannon notices the end of an `amount` only at its next once-a-second sample, so its own `duration` is
 * rounded up to whole seconds: 1,200 look-ups done in 2.1 s read as 400 a second, and in 0.6 s as 1,200.)
 */
async function runAmount(opts: autocannon.Options & { requests: autocannon.Request[] }) {
  let lastAnswer = 0;
  const requests = opts.requests.map((request) => ({
    ...request,
    onResponse: (status: number, body: string, context: Record<string, unknown>) => {
      lastAnswer = performance.now();
      request.onResponse?.(status, body, context);
    },
  }));
  const started = performance.now();
  const result = await run({ ...opts, requests });
  return { result, seconds: (lastAnswer - started) / 1000 };
}

/** With BENCH_WEBHOOK=1: when each code's `code.verified` delivery arrived, and a wait for a number of them. */
const hookArrivals = new Map<number, number>();
let hookWaiter: { codes: number[]; resolve: () => void } | null = null;
const allArrived = (codes: number[]) => codes.every((id) => hookArrivals.has(id));
const receiver =
  process.env.BENCH_WEBHOOK === "1"
    ? createServer((req, res) => {
        let body = "";
        req.on("data", (chunk) => {
          body += chunk;
        });
        req.on("end", () => {
          const at = performance.now();
          res.end();
          const { type, data } = JSON.parse(body) as { type: string; data: { codeId: number } };
          if (type !== "code.verified" || !req.headers["webhook-signature"]) return;
          hookArrivals.set(data.codeId, at);
          if (hookWaiter && allArrived(hookWaiter.codes)) hookWaiter.resolve();
        });
      })
    : null;
const hookUrl = receiver
  ? await new Promise<string>((resolve) =>
      receiver.listen(0, "127.0.0.1", () =>
        resolve(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`),
      ),
    )
  : null;
/** Until every one of `codes` has had its webhook, or `ms` have passed. */
function webhooksOf(codes: number[], ms: number) {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    hookWaiter = {
      codes,
      resolve: () => {
        clearTimeout(timer);
        resolve();
      },
    };
    if (allArrived(codes)) hookWaiter.resolve();
  });
}

type Started = { url: string; keys: string[]; employees: string[]; child: ChildProcess };
async function startServer(): Promise<Started> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(here, "support/success-server.ts")], {
    env: {
      ...process.env,
      BENCH_ENGINE: engine,
      BENCH_EMPLOYEES: String(EMPLOYEES + WARM_EMPLOYEES),
      ...(hookUrl ? { BENCH_WEBHOOK_URL: hookUrl } : {}),
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  for await (const line of lines) if (line.startsWith("{")) return { ...JSON.parse(line), child };
  throw new Error("bench server exited before listening");
}

const p99 = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? Number.NaN;
};

const { url, keys, employees, child } = await startServer();
const meter = cpuMeter(child.pid, databaseUrl);
type Code = { id: number; words: string[] };

/** One code for each e-mail of `owners`, issued through POST /api/v1/codes (16 at a time), in that order. */
async function issueCodes(owners: string[]): Promise<Code[]> {
  const codes: Code[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let i = next++; i < owners.length; i = next++) {
        const response = await fetch(new URL("/api/v1/codes", url), {
          method: "POST",
          headers: {
            "content-type": "application/json",
            authorization: `Bearer ${keys[i % keys.length]}`,
            "x-forwarded-for": `10.200.${(i >> 8) & 255}.${i & 255}`,
          },
          body: JSON.stringify({ employeeEmail: owners[i] }),
        });
        if (response.status !== 201) throw new Error(`issuing code ${i}: ${response.status} ${await response.text()}`);
        codes[i] = (await response.json()) as Code;
      }
    }),
  );
  return codes;
}

let lookUpIp = 0;
/** Each code looked up once through POST /api/verify (32 connections, an address each); when each was verified. */
async function lookUpAll(codes: Code[]) {
  const answeredAt = new Map<number, number>();
  let k = 0;
  const { result, seconds } = await runAmount({
    url,
    connections: CONNECTIONS,
    amount: codes.length,
    requests: [
      {
        method: "POST",
        path: "/api/verify",
        setupRequest: (req, context) => {
          const code = codes[k++ % codes.length] as Code;
          const i = lookUpIp++;
          context.id = code.id;
          return {
            ...req,
            headers: { "content-type": "application/json", "x-forwarded-for": `10.202.${(i >> 8) & 255}.${i & 255}` },
            body: JSON.stringify({ words: code.words.join(" ") }),
          };
        },
        onResponse: (status, body, context) => {
          if (status === 200 && body.includes('"verified":true'))
            answeredAt.set(context.id as number, performance.now());
        },
      },
    ],
  });
  return { result, seconds, answeredAt };
}

try {
  // Warm both paths up (not counted): failed look-ups, and codes of the warm-up's own employees issued and used,
  // so that neither timed run pays for preparing its statements on the server's connections.
  await run({ url, connections: CONNECTIONS, duration: 2, requests: [lookupRequest("/api/verify")] });
  const warmCodes = await issueCodes(
    Array.from({ length: 3 * WARM_EMPLOYEES }, (_, i) => employees[EMPLOYEES + (i % WARM_EMPLOYEES)] as string),
  );
  await lookUpAll(warmCodes);

  // ---- issue the codes: employee i gets codes i, i + EMPLOYEES, i + 2 × EMPLOYEES ----
  const issueStart = performance.now();
  const codes = await issueCodes(Array.from({ length: CODES }, (_, i) => employees[i % EMPLOYEES] as string));
  const issueSeconds = (performance.now() - issueStart) / 1000;

  // ---- status streams for STREAMS codes of distinct employees, spread over the run: when `verified` arrives ----
  // Employee e's codes are looked up at e, e + EMPLOYEES and e + 2 × EMPLOYEES. The first STREAMS codes put
  // every stream's event in the run's first tenth of a second, where they held up the look-ups around them
  // (a tenth to a fifth of a second, p99 up to 111 ms: bench/README.md, verify-success, 2026-11-28).
  const watched = Array.from({ length: STREAMS }, (_, i) => {
    const employee = Math.floor((i * EMPLOYEES) / STREAMS);
    const at = (i % 3) * EMPLOYEES + employee;
    return codes[at < codes.length ? at : employee] as Code;
  });
  const eventAt = new Map<number, number>();
  const streamsOpen = new AbortController();
  const streams = await Promise.all(
    watched.map(async (code, i) => {
      const response = await fetch(new URL(`/api/v1/codes/${code.id}/events`, url), {
        headers: { authorization: `Bearer ${keys[i % keys.length]}`, "x-forwarded-for": `10.201.0.${i % 250}` },
        signal: streamsOpen.signal,
      });
      if (response.status !== 200 || !response.body) throw new Error(`stream ${code.id}: ${response.status}`);
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      // the stream's first state (`live`) before the look-ups start
      let text = "";
      while (!text.includes("event: live")) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ${code.id} ended early`);
        text += value;
      }
      // wrapped, so that opening the streams does not wait for their end
      const ended = (async () => {
        for (;;) {
          const { value, done } = await reader.read().catch(() => ({ value: "", done: true }));
          if (done) return;
          text += value;
          if (text.includes("event: verified")) {
            eventAt.set(code.id, performance.now());
            return;
          }
        }
      })();
      return { ended };
    }),
  );

  // ---- each code looked up once: successes ----
  // The audit chain of the issuing and the warm-up first, so that neither timed run carries it; each timed run
  // is then charged the chain of its own events (bench/README.md, as verify and calls are).
  await checkpoint(url);
  const successStarted = performance.now();
  const [{ result: success, seconds: successRun, answeredAt }, successCpu] = await meter.measure(
    () => lookUpAll(codes),
    (r) => r.result.requests.total,
  );
  const successChain = await checkpoint(url);
  const successSeconds = successRun + successChain.ms / 1000;
  const verified = answeredAt.size;
  await Promise.race([Promise.all(streams.map((s) => s.ended)), new Promise((resolve) => setTimeout(resolve, 5000))]);
  streamsOpen.abort();
  // the webhooks of the verified codes, before the failed run starts (it is not charged their deliveries)
  if (receiver) await webhooksOf([...answeredAt.keys()], 30_000);

  // ---- as many failed look-ups (random words), the same way ----
  await checkpoint(url);
  const [{ result: failed, seconds: failedRun }, failedCpu] = await meter.measure(
    () => runAmount({ url, connections: CONNECTIONS, amount: CODES, requests: [lookupRequest("/api/verify")] }),
    (r) => r.result.requests.total,
  );
  const failedChain = await checkpoint(url);
  const failedSeconds = failedRun + failedChain.ms / 1000;

  const liveMs = [...eventAt].map(([id, at]) => at - (answeredAt.get(id) ?? at));
  const successRate = verified / successSeconds;
  const failedRate = failed.requests.total / failedSeconds;
  const liveP99 = p99(liveMs);
  const hookMs = [...answeredAt].flatMap(([id, at]) => {
    const arrived = hookArrivals.get(id);
    return arrived === undefined ? [] : [arrived - at];
  });
  const hookP99 = p99(hookMs);
  // how fast the endpoint took them while the look-ups ran, and after
  const lastAnswer = Math.max(...answeredAt.values());
  const hookTimes = [...answeredAt.keys()].flatMap((id) => hookArrivals.get(id) ?? []);
  const hooksDuring = hookTimes.filter((at) => at <= lastAnswer).length;
  const hooksDone = Math.max(lastAnswer, ...hookTimes);
  console.log(
    `${engine}: ${CODES} codes issued through /api/v1/codes for ${EMPLOYEES} employees in ${issueSeconds.toFixed(1)} s; ` +
      `${STREAMS} status streams open`,
  );
  console.log(
    `  successful look-ups ${successRate.toFixed(0).padStart(5)}/s   p99 ${success.latency.p99} ms   ` +
      `(${verified} of ${CODES} verified, non-2xx/errors ${success.non2xx + success.errors}; ` +
      `during the run ${(verified / successRun).toFixed(0)}/s, audit chain ${successChain.ms.toFixed(0)} ms after it)` +
      (successCpu ? `\n                       ${formatCpu(successCpu)}` : ""),
  );
  console.log(
    `  failed look-ups     ${failedRate.toFixed(0).padStart(5)}/s   p99 ${failed.latency.p99} ms   ` +
      `(non-2xx/errors ${failed.non2xx + failed.errors}; during the run ${(failed.requests.total / failedRun).toFixed(0)}/s, ` +
      `audit chain ${failedChain.ms.toFixed(0)} ms after it)` +
      (failedCpu ? `\n                       ${formatCpu(failedCpu)}` : ""),
  );
  console.log(
    `  successful ÷ failed ${(successRate / failedRate).toFixed(2)}x; live status: ${eventAt.size} of ${STREAMS} ` +
      `verified events, p99 ${liveP99.toFixed(0)} ms after the answer; load average ${load1()}`,
  );
  if (receiver)
    console.log(
      `  webhooks: ${hookMs.length} of ${verified} verified codes' code.verified received, p99 ${hookP99.toFixed(0)} ms ` +
        `after the answer (max ${Math.max(0, ...hookMs).toFixed(0)} ms); ` +
        `${hooksDuring} during the run (${(hooksDuring / ((lastAnswer - successStarted) / 1000)).toFixed(0)}/s), ` +
        `${hookMs.length - hooksDuring} after it (${((hookMs.length - hooksDuring) / Math.max(0.001, (hooksDone - lastAnswer) / 1000)).toFixed(0)}/s)`,
    );
  const ok =
    verified === CODES &&
    eventAt.size === STREAMS &&
    successRate >= 1000 &&
    successRate >= 0.5 * failedRate &&
    success.latency.p99 <= 40 &&
    failed.latency.p99 <= 40 &&
    liveP99 <= 250 &&
    (!receiver || (hookMs.length === verified && hookP99 <= 250));
  console.log(
    ok
      ? "  (targets met)"
      : "  (TARGET MISSED: ≥ 1,000/s, ≥ 0.5x failed, p99 ≤ 40 ms, live (and webhooks) ≤ 250 ms p99)",
  );
  process.exitCode = ok ? 0 : 1;
} finally {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
  receiver?.close();
}
