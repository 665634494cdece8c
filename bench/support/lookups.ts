import { WORDS } from "@server/features/codes/words";
import type autocannon from "autocannon";
import { type CpuPerRequest, meanCpu } from "./cpu";

const pick = () => WORDS[Math.floor(Math.random() * WORDS.length)];
let ipSeq = 0;

/** The audit events a run wrote, chained after it by the bench server's /bench/checkpoint (bench-app.ts), and how long that took. */
export type Chain = { events: number; ms: number };

/** One timed run, its CPU per request (support/cpu.ts; null where it cannot be read) and the checkpoint of its events after it. */
export type Run = { result: autocannon.Result; chain: Chain; cpu: CpuPerRequest | null };

const sum = (rs: Run[], f: (r: Run) => number) => rs.reduce((s, r) => s + f(r), 0);

/**
 * A route's runs: req/s charged with the checkpoint of its events (the figure compared) and during the runs
 * alone, the checkpoint's time and cost per event, the worst p50/p99, and the answers that were not 2xx.
 */
export function summarise(rs: Run[]) {
  const chainMs = sum(rs, (r) => r.chain.ms);
  return {
    reqs: sum(rs, (r) => r.result.requests.total) / sum(rs, (r) => r.result.duration + r.chain.ms / 1000),
    raw: sum(rs, (r) => r.result.requests.total) / sum(rs, (r) => r.result.duration),
    chainMs,
    chainUs:
      (1000 * chainMs) /
      Math.max(
        1,
        sum(rs, (r) => r.chain.events),
      ),
    p50: Math.max(...rs.map((r) => r.result.latency.p50)),
    p99: Math.max(...rs.map((r) => r.result.latency.p99)),
    bad: sum(rs, (r) => r.result.non2xx + r.result.errors + r.result.timeouts),
    cpu: meanCpu(rs.flatMap((r) => (r.cpu ? [{ cpu: r.cpu, requests: r.result.requests.total }] : []))),
  };
}

/** Drains the server's audit checkpoint after a run, so the run is charged the chain of its own events. */
export async function checkpoint(url: string): Promise<Chain> {
  const response = await fetch(new URL("/bench/checkpoint", url), { method: "POST" });
  if (!response.ok) throw new Error(`checkpoint: ${response.status}`);
  return (await response.json()) as Chain;
}

/**
 * Widget look-ups for autocannon: random list words, each request from a client IP of its own
 * (X-Forwarded-For, for a server that trusts the loopback proxy), so the per-IP limit never refuses.
 */
export function lookupRequest(path: string): autocannon.Request {
  return {
    method: "POST",
    path,
    setupRequest: (req) => {
      const n = ++ipSeq;
      return {
        ...req,
        headers: {
          "content-type": "application/json",
          "x-forwarded-for": `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
        },
        body: JSON.stringify({ words: `${pick()} ${pick()} ${pick()}` }),
      };
    },
  };
}
