import { cpSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { build as esbuild } from "esbuild";
import { build as viteBuild } from "vite";
import { FIRST_LOAD_BUDGET_BYTES, firstLoad } from "./first-load";
import { pgliteSeed } from "./pglite-seed";

/**
 * The production build, into dist/: the web app (Vite), the widget and the call-status component in dist/web, each text file also
 * precompressed as .br and .gz; the server and the operator CLI bundled for plain node in dist/server
 * (with their packages, except the few listed below; source maps beside them); and dist/build-stamp, whose time
 * `npm start` compares with the sources' to rebuild a stale build.
 */
const root = fileURLToPath(new URL("..", import.meta.url));
const dist = path.join(root, "dist");
const webOut = path.join(dist, "web");
const serverOut = path.join(dist, "server");

/** Files worth compressing (images other than SVG and fonts are compressed already). */
const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|txt|xml|webmanifest)$/;
/** Below this a compressed copy saves too little to be worth a file. */
const MIN_BYTES = 256;

const started = Date.now();
rmSync(path.join(dist, "build-stamp"), { force: true });

await viteBuild({ configFile: path.join(root, "vite.config.ts"), configLoader: "runner", logLevel: "warn" });
await import("./build-widget");
await import("./build-call-status");

// The first load of a public page: the home page's must stay within budget (the build fails otherwise).
const loads = firstLoad(webOut);
console.log(`first-load JS, gzip: ${loads.map((l) => `${l.page} ${(l.bytes / 1024).toFixed(1)} KB`).join(", ")}`);
const home = loads.find((l) => l.page === "/");
if (!home || home.bytes > FIRST_LOAD_BUDGET_BYTES) {
  console.error(`the home page's first load is over its ${FIRST_LOAD_BUDGET_BYTES / 1024} KB gzip budget`);
  process.exit(1);
}

/**
 * Packages left in node_modules: they load files beside their own code (PGlite's WebAssembly and data,
 * argon2's native addon, pino's worker threads, Swagger UI's static files) or are optional (pg-native).
 * Everything else is bundled into main.js, cli.js, pglite-worker.js and the chunks they share: resolving
 * and loading some 1,200 module files one by one was half of a start (measured in bench/README.md, "Start-up").
 */
const KEPT_IN_NODE_MODULES = [
  "@electric-sql/pglite",
  "argon2",
  "pino",
  "pino-pretty",
  "thread-stream",
  "@fastify/swagger-ui",
  "pg-native",
];

rmSync(serverOut, { recursive: true, force: true });
await esbuild({
  absWorkingDir: root,
  // The embedded database's thread is an entry of its own (src/server/db/pglite-thread.ts starts it), and
  // main.ts loads the rest of the server as a separate chunk, after starting that thread.
  entryPoints: {
    main: "src/server/main.ts",
    cli: "src/server/cli.ts",
    "pglite-worker": "src/server/db/pglite-worker.ts",
  },
  outdir: serverOut,
  bundle: true,
  splitting: true,
  platform: "node",
  format: "esm",
  target: "node22",
  external: KEPT_IN_NODE_MODULES,
  // The bundled CommonJS packages call require() and read __dirname/__filename, which an ES module lacks.
  banner: {
    js: [
      'import { createRequire as __createRequire } from "node:module";',
      'import { fileURLToPath as __fileURLToPath } from "node:url";',
      'import { dirname as __pathDirname } from "node:path";',
      "const require = __createRequire(import.meta.url);",
      "const __filename = __fileURLToPath(import.meta.url);",
      "const __dirname = __pathDirname(__filename);",
    ].join(" "),
  },
  // Smaller to parse; names kept (plugins and error classes are known by them), source maps for stacks.
  // The maps name each source file and line without embedding the sources (7.3 of main.js.map's 10.8 MB):
  // Node reads the map at every start, and loading the modules took about 50 ms less (bench/README.md).
  minify: true,
  keepNames: true,
  sourcemap: true,
  sourcesContent: false,
  logLevel: "warning",
});
cpSync(path.join(root, "src/server/db/migrations"), path.join(serverOut, "migrations"), { recursive: true });

// The embedded database's seed (src/server/db/client.ts, PGLITE_SEED): PGlite's initdb and every migration,
// done once (scripts/pglite-seed.ts) instead of at each new data directory's first start.
cpSync(await pgliteSeed(), path.join(serverOut, "pglite-seed.tar.gz"));

let raw = 0;
let brotli = 0;
let files = 0;
const compress = (dir: string) => {
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) {
      compress(file);
      continue;
    }
    if (!COMPRESSIBLE.test(name)) continue;
    const content = readFileSync(file);
    if (content.length < MIN_BYTES) continue;
    const br = brotliCompressSync(content, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: content.length },
    });
    writeFileSync(`${file}.br`, br);
    writeFileSync(`${file}.gz`, gzipSync(content, { level: 9 }));
    raw += content.length;
    brotli += br.length;
    files++;
  }
};
compress(webOut);

writeFileSync(path.join(dist, "build-stamp"), `${new Date().toISOString()}\n`);
const kb = (n: number) => `${(n / 1024).toFixed(0)} KB`;
console.log(
  `Built dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s: ${files} web files precompressed ` +
    `(${kb(raw)} → ${kb(brotli)} brotli); server and CLI in dist/server.`,
);
