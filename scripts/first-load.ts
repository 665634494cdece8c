import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";

/** The JavaScript budget of a public page's first load, gzip: the bar for a phone on a slow network. */
export const FIRST_LOAD_BUDGET_BYTES = 90 * 1024;

/** Public pages and the chunk of each one's own code (Vite names a lazy page's chunk after its file). */
const PAGES: Record<string, string | null> = {
  "/": null,
  "/login": "login-page",
  "/in-a-call": "in-a-call-page",
};

/**
 * The gzip size of the JavaScript each public page loads before it shows: the entry script of
 * index.html with every module it imports statically, plus the page's own chunk and its static imports.
 */
export function firstLoad(webDir: string): Array<{ page: string; bytes: number; files: string[] }> {
  const assets = path.join(webDir, "assets");
  const html = readFileSync(path.join(webDir, "index.html"), "utf8");
  const entry = /<script type="module"[^>]*src="\/assets\/([^"]+\.js)"/.exec(html)?.[1];
  if (!entry) throw new Error("index.html has no module entry script");
  const gz = (file: string) => gzipSync(readFileSync(path.join(assets, file)), { level: 9 }).length;
  /** A chunk and every chunk it imports statically (not `import()`). */
  const closure = (file: string, seen = new Set<string>()) => {
    if (seen.has(file)) return seen;
    seen.add(file);
    const code = readFileSync(path.join(assets, file), "utf8");
    for (const m of code.matchAll(/(?:^|[;}\s])import\s*(?:[\w${},\s*]+from\s*)?"\.\/([^"]+\.js)"/g)) {
      if (m[1]) closure(m[1], seen);
    }
    return seen;
  };
  const chunks = readdirSync(assets).filter((f) => f.endsWith(".js"));
  return Object.entries(PAGES).map(([page, chunk]) => {
    const files = closure(entry);
    if (chunk) {
      const own = chunks.find((f) => f.startsWith(`${chunk}-`));
      if (!own) throw new Error(`no chunk for ${page} (${chunk}-*.js)`);
      closure(own, files);
    }
    return { page, bytes: [...files].reduce((n, f) => n + gz(f), 0), files: [...files] };
  });
}
