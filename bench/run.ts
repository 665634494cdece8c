/** `npm run bench -- <name>` runs bench/<name>.ts; with no name, lists them. */
import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const names = readdirSync(here)
  .filter((f) => f.endsWith(".ts") && f !== "run.ts")
  .map((f) => f.replace(/\.ts$/, ""));
const name = process.argv[2];
if (!name || !names.includes(name)) {
  console.log(`usage: npm run bench -- <${names.join("|")}>`);
  process.exit(name ? 2 : 0);
}
await import(path.join(here, `${name}.ts`));
