/**
 * Docs that cannot rot: every project path that the README or a page under docs/ (every one, decisions
 * included) names in backticks exists, and every test a page cites as `file › test name` is still a test
 * of that file. A path may be written from the repository root (`src/server/app.ts`) or, outside the
 * decision records, shortened to its tail (`features/sso/signin.ts`, `login-page.tsx`): then some file of
 * the project ends so. After a
 * source file, `file › name` names something in it (a function, a constant), which must still be there.
 * A renamed file, test or function fails here instead of sending a newcomer to nothing.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..");
const ROOTS = ["src/", "e2e/", "test/", "bench/", "scripts/", "docs/", ".ci/"];
/** A shortened path: a file name with one of the project's source extensions, or a folder of src. */
const SHORT_PATH = /^(?:[\w.-]+\/)*[\w.-]+\.(?:tsx?|css|sql|grit)$/;
const SHORT_FOLDER = /^(?:features|web|server|plugins|shared|lib|widget)\/[\w./-]*$/;

/** Every file of the project's own folders (what a shortened path may name), relative to the root. */
function projectFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
      const rel = path.join(dir, entry.name);
      return entry.isDirectory() ? walk(rel) : [rel];
    });
  const atRoot = readdirSync(root, { withFileTypes: true }).filter((entry) => entry.isFile());
  const folders = ROOTS.map((r) => r.slice(0, -1)).filter((dir) => existsSync(path.join(root, dir)));
  return [...atRoot.map((entry) => entry.name), ...folders.flatMap(walk)];
}

function markdownFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(rel);
    return entry.name.endsWith(".md") ? [rel] : [];
  });
}

/** The page's text outside fenced code blocks (those hold commands whose paths are the reader's, not ours). */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, "");
}

/**
 * Backticked spans that start with one of the project's folders, or are a shortened path (`short`),
 * without a placeholder or a glob.
 */
function citedPaths(text: string): Array<{ file: string; test?: string; short?: true }> {
  const cited: Array<{ file: string; test?: string; short?: true }> = [];
  for (const [, span] of prose(text).matchAll(/`([^`\n]+)`/g)) {
    if (!span) continue;
    const [rawFile, test] = span.split(" › ");
    if (!rawFile || /[<>*{}$ ]/.test(rawFile)) continue;
    const file = rawFile.replace(/[:#].*$/, "");
    if (ROOTS.some((r) => span.startsWith(r))) cited.push({ file, test: test?.trim() });
    else if (SHORT_PATH.test(file) || SHORT_FOLDER.test(file)) cited.push({ file, test: test?.trim(), short: true });
  }
  return cited;
}

/** The project files a shortened path may name: those whose path ends with it (a folder's files under it). */
function filesEndingWith(files: string[], short: string): string[] {
  const tail = `/${short.replace(/\/$/, "")}`;
  return files.filter((file) => `/${file}`.endsWith(tail) || `/${file}`.includes(`${tail}/`));
}

/** Whether `name` (a function, a constant, a test) is still in the source. */
function names(source: string, file: string, name: string): boolean {
  if (/\.test\.tsx?$/.test(file)) return hasTest(source, name);
  return new RegExp(`\\b${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`).test(source);
}

/**
 * Whether a title is one of the file's test or group titles: a string that opens a call (`it("…"`,
 * `describe("…"`, `it.each(…)("refuses %s"`, `it(\`${url} answers…\``), with `%s` and `${…}` standing for
 * whatever the table or loop puts there.
 */
function hasTest(source: string, title: string): boolean {
  for (const [, , literal] of source.matchAll(/\(\s*(["'`])((?:\\.|(?!\1)[^\\])*)\1/g)) {
    if (!literal) continue;
    const pattern = literal
      .split(/%[sdif]|\$\{[^}]*\}/)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join(".+");
    if (new RegExp(`^${pattern}$`).test(title)) return true;
  }
  return false;
}

const pages = ["README.md", ...markdownFiles("docs")];
const files = projectFiles();

describe("the docs name only what exists", () => {
  it.each(pages)("%s", (page) => {
    const text = readFileSync(path.join(root, page), "utf8");
    const missing: string[] = [];
    for (const { file, test, short } of citedPaths(text)) {
      // A decision records what was decided then: its full paths must exist, its shortened names may be of that time.
      if (short && page.startsWith("docs/decisions/")) continue;
      const candidates = short ? filesEndingWith(files, file) : existsSync(path.join(root, file)) ? [file] : [];
      if (candidates.length === 0) {
        missing.push(file);
        continue;
      }
      if (!test || test.includes("…")) continue;
      const named = candidates.some(
        (candidate) =>
          statSync(path.join(root, candidate)).isFile() &&
          names(readFileSync(path.join(root, candidate), "utf8"), candidate, test),
      );
      if (!named) missing.push(`${file} › ${test}`);
    }
    expect(missing).toEqual([]);
  });

  it("reads the README and every page under docs/", () => {
    expect(pages).toContain("README.md");
    expect(pages).toContain("docs/spec-coverage.md");
    expect(pages.filter((page) => page.startsWith("docs/decisions/")).length).toBeGreaterThan(0);
  });

  it("finds the paths and test titles it checks (the check itself works)", () => {
    const found = citedPaths(
      "Run `src/a.ts › does x` and `npm test`; not `src/<feature>/` nor\n```sh\nls `src/b.ts`\n```\n",
    );
    expect(found).toEqual([{ file: "src/a.ts", test: "does x" }]);
    expect(citedPaths("`login-page.tsx`, `features/sso/signin.ts › start`, `a b.ts`, `x.json`")).toEqual([
      { file: "login-page.tsx", short: true },
      { file: "features/sso/signin.ts", test: "start", short: true },
    ]);
    const some = ["src/web/a/login-page.tsx", "src/server/features/sso/signin.ts"];
    expect(filesEndingWith(some, "login-page.tsx")).toEqual(["src/web/a/login-page.tsx"]);
    expect(filesEndingWith(some, "ogin-page.tsx")).toEqual([]);
    expect(filesEndingWith(some, "features/sso")).toEqual(["src/server/features/sso/signin.ts"]);
    expect(names("export function start() {}", "signin.ts", "start")).toBe(true);
    expect(names("export function restart() {}", "signin.ts", "start")).toBe(false);
    expect(hasTest('it("does x", () => {})', "does x")).toBe(true);
    expect(hasTest('it("does y", () => {})', "does x")).toBe(false);
    expect(hasTest('it.each([["a"]])("refuses %s, not more", f)', "refuses a look-alike, not more")).toBe(true);
    const loop = `it(\`$\{url} answers 4xx\`, f)`;
    expect(hasTest(loop, "/api/auth/login answers 4xx")).toBe(true);
  });
});
