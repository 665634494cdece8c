/**
 * Docs that cannot rot: every project path that the README or a page under docs/ names in backticks exists,
 * and every test a page cites as `file › test name` is still a test of that file. A renamed file or test
 * fails here instead of sending a newcomer to nothing.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..");
const ROOTS = ["src/", "e2e/", "test/", "bench/", "scripts/", "docs/", ".ci/"];

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

/** Backticked spans that start with one of the project's folders, without a placeholder or a glob. */
function citedPaths(text: string): Array<{ file: string; test?: string }> {
  const cited: Array<{ file: string; test?: string }> = [];
  for (const [, span] of prose(text).matchAll(/`([^`\n]+)`/g)) {
    if (!span || !ROOTS.some((r) => span.startsWith(r))) continue;
    const [file, test] = span.split(" › ");
    if (!file || /[<>*{}$ ]/.test(file)) continue;
    cited.push({ file: file.replace(/[:#].*$/, ""), test: test?.trim() });
  }
  return cited;
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

describe("the docs name only what exists", () => {
  it.each(pages)("%s", (page) => {
    const text = readFileSync(path.join(root, page), "utf8");
    const missing: string[] = [];
    for (const { file, test } of citedPaths(text)) {
      const full = path.join(root, file);
      if (!existsSync(full)) {
        missing.push(file);
        continue;
      }
      if (test && !test.includes("…") && !hasTest(readFileSync(full, "utf8"), test)) missing.push(`${file} › ${test}`);
    }
    expect(missing).toEqual([]);
  });

  it("finds the paths and test titles it checks (the check itself works)", () => {
    const found = citedPaths(
      "Run `src/a.ts › does x` and `npm test`; not `src/<feature>/` nor\n```sh\nls `src/b.ts`\n```\n",
    );
    expect(found).toEqual([{ file: "src/a.ts", test: "does x" }]);
    expect(hasTest('it("does x", () => {})', "does x")).toBe(true);
    expect(hasTest('it("does y", () => {})', "does x")).toBe(false);
    expect(hasTest('it.each([["a"]])("refuses %s, not more", f)', "refuses a look-alike, not more")).toBe(true);
    const loop = `it(\`$\{url} answers 4xx\`, f)`;
    expect(hasTest(loop, "/api/auth/login answers 4xx")).toBe(true);
  });
});
