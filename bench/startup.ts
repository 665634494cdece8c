/**
 * Start-up time, from spawning the command to the first answer of GET /api/auth/whoami (401), on a new
 * data directory (PGlite initdb + every migration) and on an existing one, three ways:
 *   npm start                   what an operator types (npm itself, then scripts/start.mjs)
 *   node scripts/start.mjs      the stale-build check (walks the sources), then the server in the same process
 *   node dist/server/main.js    the server alone
 * and the server's own steps, from its "Ready in …" log line (src/server/startup-steps.ts): Node's
 * bootstrap, the build check, module loading, opening the database, the migrations check, building
 * the app, the admin check, listen. Median of BENCH_RUNS (default 3) each; BENCH_ONLY=npm runs only
 * `npm start`. Run `npm run build` first.
 *   npm run bench -- startup
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "../e2e/support";

const root = fileURLToPath(new URL("..", import.meta.url));
if (!existsSync(path.join(root, "dist/server/main.js"))) {
  console.error("No build: run `npm run build` first.");
  process.exit(2);
}
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

type Launcher = { name: string; command: string; args: string[] };
const ALL_LAUNCHERS: Launcher[] = [
  { name: "npm start", command: "npm", args: ["start", "--silent"] },
  { name: "node scripts/start.mjs", command: process.execPath, args: ["scripts/start.mjs"] },
  {
    name: "node dist/server/main.js",
    command: process.execPath,
    args: ["--enable-source-maps", "dist/server/main.js"],
  },
];

/** BENCH_ONLY=npm (or start.mjs, main.js): only the launchers whose name contains it. */
const LAUNCHERS = ALL_LAUNCHERS.filter((l) => l.name.includes(process.env.BENCH_ONLY ?? ""));

type Run = { wallMs: number; readyMs: number; cpuMs: number; steps: Record<string, number> };

async function startOnce(launcher: Launcher, dataDir: string): Promise<Run> {
  const port = await freePort();
  const started = performance.now();
  // Its own process group: npm runs the server as a grandchild, and SIGTERM must reach it.
  const child = spawn(launcher.command, launcher.args, {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", PORT: String(port), DATA_DIR: dataDir },
    stdio: ["ignore", "pipe", "inherit"],
    detached: true,
  });
  type Ready = { totalMs: number; cpuMs: number; steps: Record<string, number> };
  let ready: Ready | null = null;
  let buffered = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    buffered += chunk;
    for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (!line.includes('"startupMs"')) continue;
      const parsed = JSON.parse(line) as { startupMs: Record<string, number>; cpuMs: number; msg: string };
      const totalMs = Number(/Ready in (\d+) ms/.exec(parsed.msg)?.[1] ?? 0);
      ready = { totalMs, cpuMs: parsed.cpuMs, steps: parsed.startupMs };
    }
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    for (;;) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/api/auth/whoami`)).status === 401) break;
      } catch {}
      if (child.exitCode !== null) throw new Error(`${launcher.name} exited before answering`);
      await new Promise((r) => setTimeout(r, 10));
    }
    const wallMs = performance.now() - started;
    // The log line is written before the first answer; give the pipe a moment to deliver it.
    for (let i = 0; i < 100 && !ready; i++) await new Promise((r) => setTimeout(r, 10));
    const got = ready as Ready | null;
    return { wallMs, readyMs: got?.totalMs ?? Number.NaN, cpuMs: got?.cpuMs ?? Number.NaN, steps: got?.steps ?? {} };
  } finally {
    if (child.pid) process.kill(-child.pid, "SIGTERM");
    await exited;
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

console.log(`load average before: ${load()} (${RUNS} runs each; medians)`);
for (const launcher of LAUNCHERS) {
  const fresh: Run[] = [];
  const existing: Run[] = [];
  for (let i = 0; i < RUNS; i++) {
    const dir = mkdtempSync(path.join(tmpdir(), "callproof-startup-"));
    try {
      fresh.push(await startOnce(launcher, dir));
      existing.push(await startOnce(launcher, dir));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  for (const [label, runs] of [
    ["new data directory", fresh],
    ["existing data directory", existing],
  ] as const) {
    const names = [...new Set(runs.flatMap((r) => Object.keys(r.steps)))];
    const steps = names.map((n) => `${n} ${Math.round(median(runs.map((r) => r.steps[n] ?? 0)))}`).join(", ");
    const wall = median(runs.map((r) => r.wallMs));
    const ready = median(runs.map((r) => r.readyMs));
    console.log(
      `${launcher.name.padEnd(25)} ${label.padEnd(24)} ${s(wall)} (runs: ${runs.map((r) => s(r.wallMs)).join(", ")})\n` +
        `${" ".repeat(26)}in the process: ready at ${Math.round(ready)} ms, ` +
        `${Math.round(median(runs.map((r) => r.cpuMs)))} ms CPU (${steps}); ` +
        `spawn${launcher.name === "npm start" ? " + npm" : ""} + first answer ${Math.round(wall - ready)} ms`,
    );
  }
}
console.log(`load average after: ${load()}`);
