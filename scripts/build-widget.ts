import { readFileSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { CATALOGUES } from "@shared/i18n";
import { DEFAULT_LANGUAGE, LANGUAGES } from "@shared/languages";
import { build } from "esbuild";

/**
 * Builds the embeddable widget as one small IIFE file served at /widget.js (English built in), and each
 * other language's widget texts as /widget-<lang>.json, which the widget fetches only for that language.
 */
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
const chunks: string[] = [];
for (const language of LANGUAGES) {
  if (language === DEFAULT_LANGUAGE) continue;
  const json = JSON.stringify(CATALOGUES[language].widget);
  writeFileSync(`dist/web/widget-${language}.json`, json);
  chunks.push(`${language} +${gzipSync(json).length}`);
}
console.log(`widget.js: ${size} bytes gzip (English); other languages' texts, bytes gzip: ${chunks.join(", ")}`);
if (size > 5 * 1024) {
  console.error("widget.js is over its 5 KB gzip budget");
  process.exit(1);
}
