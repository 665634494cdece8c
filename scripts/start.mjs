// `npm start` and `npm run admin`: plain node, no compiler at run time. Builds first when dist/ is
// missing or older than any source file (when the build tools are installed), then runs the built
// server (or, with `cli` as first argument, the operator CLI) in this same process.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import module from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const stamp = path.join(root, "dist/build-stamp");
/**
 * What the build is made from: a change to any of these makes the build stale. (package.json and its lock
 * are left out: `npm prune` rewrites them; after changing dependencies, `npm ci && npm run build`.)
 */
const SOURCES = ["src", "scripts/build.ts", "scripts/build-widget.ts", "scripts/build-call-status.ts", "vite.config.ts", "tsconfig.json"];

/** Newest modification time (ms) of the files under `paths`, tests aside (they are not built). */
function newestSource(paths) {
  let newest = 0;
  const visit = (p) => {
    const stat = statSync(p, { throwIfNoEntry: false });
    if (!stat) return;
    if (stat.isDirectory()) for (const entry of readdirSync(p)) visit(path.join(p, entry));
    else if (!p.endsWith(".test.ts")) newest = Math.max(newest, stat.mtimeMs);
  };
  for (const p of paths) visit(path.join(root, p));
  return newest;
}

// The check's time shows in the server's "Ready in …" line (src/server/startup-steps.ts).
performance.mark("callproof:build-check-start");
const built = statSync(stamp, { throwIfNoEntry: false })?.mtimeMs ?? 0;
const canBuild = existsSync(path.join(root, "node_modules/vite")) && existsSync(path.join(root, "node_modules/tsx"));
if (built === 0 || newestSource(SOURCES) > built) {
  if (canBuild) {
    console.log(
      built === 0 ? "No build yet: building first (npm run build)…" : "Sources changed: rebuilding (npm run build)…",
    );
    const result = spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" });
    if (result.status !== 0) process.exit(result.status ?? 1);
  } else if (built === 0) {
    console.error("There is no build in dist/ and the build tools are not installed: run `npm ci && npm run build`.");
    process.exit(1);
  } else {
    console.warn(
      "The sources are newer than the build in dist/, but the build tools are not installed: starting the existing build.",
    );
  }
}

performance.mark("callproof:build-check-end");

const entry = process.argv[2] === "cli" ? "cli" : "main";
if (entry === "cli") process.argv.splice(2, 1);
process.setSourceMapsEnabled(true);
// V8's compiled code for the bundle, kept between starts (Node's own cache under the system's temporary
// directory, keyed by the file's contents): loading the modules took a third of a restart.
module.enableCompileCache?.();
await import(pathToFileURL(path.join(root, `dist/server/${entry}.js`)).href);
