/**
 * CPU time per request, read from Linux's /proc: where a request's cost goes (server, database, load
 * generator), beside req/s. It moves with the machine too (on this shared 2-core machine a failed look-up took
 * 497 µs in a fast minute and 769-1,010 µs in slow ones, bench/README.md), so it compares the routes of one
 * run rather than runs of different hours. Counted: the bench server's process (with PGlite, the
 * database's thread is in it), PostgreSQL's processes when its server runs on this machine (the backends,
 * the WAL writer…; another client of the same server meanwhile would be counted too), and this process, the
 * load generator. Each thread's time on a CPU from `/proc/<pid>/task/<tid>/schedstat` (nanoseconds).
 * Elsewhere (no /proc) nothing is measured and nothing printed.
 */
import { readdirSync, readFileSync } from "node:fs";

type Sample = { server: number; postgres: number; generator: number };
export type CpuPerRequest = { server: number; postgres: number | null; generator: number; total: number };

/** Nanoseconds on a CPU of every thread of a process (0 once it has gone). */
function processNs(pid: string): number {
  let ns = 0;
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return 0;
  }
  for (const tid of tasks) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return ns;
}

/** PostgreSQL's processes: Debian names its children "postgres: 15/main: …" and runs the postmaster as …/bin/postgres. */
function postgresNs(): number {
  let ns = 0;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    let command: string;
    try {
      command = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    } catch {
      continue;
    }
    if (command.startsWith("postgres") || command.split("\0")[0]?.endsWith("/bin/postgres")) ns += processNs(pid);
  }
  return ns;
}

const local = (url: string | undefined) => {
  if (!url) return false;
  const host = new URL(url).hostname;
  return host === "127.0.0.1" || host === "localhost" || host === "[::1]" || host === "";
};

/**
 * A meter of the server process `serverPid` (and of PostgreSQL when `databaseUrl` is on this machine).
 * `measure(work, requests)` runs `work` and gives its CPU per request in µs, or null where /proc cannot be read.
 */
export function cpuMeter(serverPid: number | undefined, databaseUrl: string | undefined) {
  const readable = serverPid !== undefined && processNs(String(serverPid)) > 0;
  const withPostgres = local(databaseUrl);
  const sample = (): Sample => ({
    server: processNs(String(serverPid)),
    postgres: withPostgres ? postgresNs() : 0,
    generator: processNs(String(process.pid)),
  });
  return {
    async measure<T>(work: () => Promise<T>, requests: (result: T) => number): Promise<[T, CpuPerRequest | null]> {
      if (!readable) return [await work(), null];
      const before = sample();
      const result = await work();
      const after = sample();
      const n = Math.max(1, requests(result));
      const us = (key: keyof Sample) => (after[key] - before[key]) / 1000 / n;
      const cpu = {
        server: us("server"),
        postgres: withPostgres ? us("postgres") : null,
        generator: us("generator"),
        total: us("server") + (withPostgres ? us("postgres") : 0) + us("generator"),
      };
      return [result, cpu];
    },
  };
}

/** Several runs' CPU per request, weighted by their requests. */
export function meanCpu(runs: { cpu: CpuPerRequest; requests: number }[]): CpuPerRequest | null {
  const n = runs.reduce((s, r) => s + r.requests, 0);
  if (runs.length === 0 || n === 0) return null;
  const mean = (f: (c: CpuPerRequest) => number) => runs.reduce((s, r) => s + f(r.cpu) * r.requests, 0) / n;
  const postgres = runs.every((r) => r.cpu.postgres !== null) ? mean((c) => c.postgres ?? 0) : null;
  return { server: mean((c) => c.server), postgres, generator: mean((c) => c.generator), total: mean((c) => c.total) };
}

/** "CPU per look-up: server 190 µs, PostgreSQL 240 µs, load generator 60 µs (490 µs)" */
export function formatCpu(cpu: CpuPerRequest | null, what = "look-up"): string {
  if (!cpu) return "";
  const µs = (v: number) => `${v.toFixed(0)} µs`;
  const database = cpu.postgres === null ? "" : `, PostgreSQL ${µs(cpu.postgres)}`;
  return `CPU per ${what}: server ${µs(cpu.server)}${database}, load generator ${µs(cpu.generator)} (${µs(cpu.total)})`;
}
