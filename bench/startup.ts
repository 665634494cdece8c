/**
 * Start-up time of the built server (`node dist/server/main.js`, as `npm start` runs it after a build):
 * from spawning the process to the first answer of GET /api/auth/whoami, on a new data directory
 * (PGlite initdb + migrations) and on an existing one. Median of 3 each. Run `npm run build` first.
 *   npm run bench -- startup
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "../e2e/support";

const root = fileURLToPath(new URL("..", import.meta.url));
const main = path.join(root, "dist/server/main.js");
if (!existsSync(main)) {
  console.error("No build: run `npm run build` first.");
  process.exit(2);
}

async function startOnce(dataDir: string): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, ["--enable-source-maps", main], {
    env: { PATH: process.env.PATH ?? "", PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: "warn" },
    stdio: "ignore",
  });
  try {
    for (;;) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/api/auth/whoami`)).status === 401) break;
      } catch {}
      if (child.exitCode !== null) throw new Error("the server exited");
      await new Promise((r) => setTimeout(r, 20));
    }
    return performance.now() - started;
  } finally {
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const fresh: number[] = [];
const existing: number[] = [];
for (let i = 0; i < 3; i++) {
  const dir = mkdtempSync(path.join(tmpdir(), "callproof-startup-"));
  fresh.push(await startOnce(dir));
  existing.push(await startOnce(dir));
}
console.log(
  `new data directory:      ${(median(fresh) / 1000).toFixed(2)} s (runs: ${fresh.map((t) => (t / 1000).toFixed(2)).join(", ")})`,
);
console.log(
  `existing data directory: ${(median(existing) / 1000).toFixed(2)} s (runs: ${existing.map((t) => (t / 1000).toFixed(2)).join(", ")})`,
);
