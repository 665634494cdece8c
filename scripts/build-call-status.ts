import { createHash } from "node:crypto";
import { readdirSync, rmSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { CALL_STATUS_TEXTS } from "@shared/call-status-texts";
import { DEFAULT_LANGUAGE, LANGUAGES } from "@shared/languages";
import { build } from "esbuild";

/**
 * Builds the call-status component (src/call-status/call-status.ts) into dist/web:
 * - call-status.<hash>.js, the versioned file integrators embed with its SRI hash, and the same bytes
 *   unversioned as call-status.js;
 * - call-status-<lang>.<hash>.json, each other language's texts, which the component fetches with their
 *   SRI hashes (built into it) only for that language; English is built in;
 * - call-status.json, `{file, integrity, gzipBytes}`, which the server reads (plugins/static.ts,
 *   callStatusScript) to give the versioned path and its hash in GET /api/public-config.
 * The build fails when the component is over its 6 KB gzip budget.
 */
const OUT = "dist/web";
export const CALL_STATUS_BUDGET_BYTES = 6 * 1024;

const sha384 = (content: string | Uint8Array) => `sha384-${createHash("sha384").update(content).digest("base64")}`;
const shortHash = (content: string | Uint8Array) => createHash("sha256").update(content).digest("hex").slice(0, 12);

for (const name of readdirSync(OUT)) if (/^call-status[.-]/.test(name)) rmSync(`${OUT}/${name}`);

const textFiles: Record<string, [string, string]> = {};
const textSizes: string[] = [];
for (const language of LANGUAGES) {
  if (language === DEFAULT_LANGUAGE) continue;
  const json = JSON.stringify(CALL_STATUS_TEXTS[language]);
  const file = `call-status-${language}.${shortHash(json)}.json`;
  writeFileSync(`${OUT}/${file}`, json);
  textFiles[language] = [file, sha384(json)];
  textSizes.push(`${language} +${gzipSync(json).length}`);
}

const result = await build({
  entryPoints: ["src/call-status/call-status.ts"],
  bundle: true,
  minify: true,
  format: "iife",
  target: ["es2020"],
  legalComments: "none",
  write: false,
  define: { __CALL_STATUS_TEXT_FILES__: JSON.stringify(textFiles) },
});
const code = result.outputFiles[0]?.contents;
if (!code) throw new Error("the call-status build wrote nothing");
const file = `call-status.${shortHash(code)}.js`;
writeFileSync(`${OUT}/${file}`, code);
writeFileSync(`${OUT}/call-status.js`, code);
const gzipBytes = gzipSync(code, { level: 9 }).length;
writeFileSync(`${OUT}/call-status.json`, JSON.stringify({ file, integrity: sha384(code), gzipBytes }));
console.log(`${file}: ${gzipBytes} bytes gzip (English); other languages' texts, bytes gzip: ${textSizes.join(", ")}`);
if (gzipBytes > CALL_STATUS_BUDGET_BYTES) {
  console.error("the call-status component is over its 6 KB gzip budget");
  process.exit(1);
}
