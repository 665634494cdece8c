/**
 * Vitest global set-up of the browser project: the production build (`npm run build`: web app, widget,
 * server), once, when dist/ is missing or older than its sources, so the browser files never serve an
 * outdated UI and e2e/start.test.ts finds dist/server fresh.
 *
 * The build runs in the background while the server projects' files run (test/sequencer.ts puts the
 * browser files last): on a fresh clone it took both test workers' first 20-25 s when this set-up waited
 * for it. A browser file awaits it through `awaitBuild()` (e2e/support.ts), which asks this process over
 * a Unix socket: the answer comes when the build has ended, "ok" or why it failed.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";
import { pgliteSeed } from "../scripts/pglite-seed";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const STAMP = path.join(ROOT, "dist/build-stamp");
/** What the production build is made from (as scripts/start.mjs decides staleness). */
const BUILD_SOURCES = ["src", "scripts/build.ts", "scripts/build-widget.ts", "vite.config.ts", "tsconfig.json"];

/** Newest modification time of any non-test file under these paths (0 if none exist). */
function newestMtime(paths: string[]): number {
  let newest = 0;
  const visit = (p: string) => {
    if (!existsSync(p)) return;
    const stat = statSync(p);
    if (stat.isDirectory()) {
      for (const entry of readdirSync(p)) visit(path.join(p, entry));
    } else if (!p.endsWith(".test.ts")) newest = Math.max(newest, stat.mtimeMs);
  };
  for (const p of paths) visit(path.join(ROOT, p));
  return newest;
}

/** Builds if dist/ is stale; resolves to null when the build is fresh, or to why it failed. */
async function build(): Promise<string | null> {
  const built = existsSync(STAMP) ? statSync(STAMP).mtimeMs : 0;
  if (built > 0 && built >= newestMtime(BUILD_SOURCES)) return null;
  return new Promise((resolve) => {
    let output = "";
    const child = spawn("npm", ["run", "build", "--silent"], {
      cwd: ROOT,
      // Vitest sets NODE_ENV=test; the build is the production one that `npm start` serves.
      env: { ...process.env, NODE_ENV: "production" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString("utf8")).slice(-20_000);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.on("error", (err) => resolve(`npm run build could not start: ${err.message}`));
    child.on("close", (code, signal) =>
      resolve(code === 0 ? null : `npm run build failed (${signal ?? `exit ${code}`}):\n${output}`),
    );
  });
}

export default async function setup(project: TestProject) {
  // The build copies the PGlite seed: made here (or found) first, so that the build and the PGlite
  // project's set-up do not both make it.
  await pgliteSeed();
  const building = build();
  const socket = path.join(tmpdir(), `callproof-build-${process.pid}-${randomBytes(4).toString("hex")}.sock`);
  const server = net.createServer((connection) => {
    connection.on("error", () => {});
    void building.then((failure) => connection.end(failure ? `failed\n${failure}` : "ok"));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socket, resolve);
  });
  project.provide("buildSocket", socket);
  return async () => {
    // A run that ends early (a filter without browser files) still waits for the build it started.
    await building;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(socket, { force: true });
  };
}
