import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

/** Builds the embeddable widget as one small IIFE file served at /widget.js. */
await build({
  entryPoints: ["src/widget/widget.ts"],
  outfile: "dist/web/widget.js",
  bundle: true,
  minify: true,
  format: "iife",
  target: ["es2019"],
  legalComments: "none",
});
const size = gzipSync(readFileSync("dist/web/widget.js")).length;
console.log(`widget.js: ${size} bytes gzip`);
if (size > 5 * 1024) {
  console.error("widget.js is over its 5 KB gzip budget");
  process.exit(1);
}
