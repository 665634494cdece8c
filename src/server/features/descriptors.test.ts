import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as schema from "@server/db/schema";
import { buildTestApp, type TestApp } from "@test/helpers";
import { getTableName, is, sql } from "drizzle-orm";
import { PgTable } from "drizzle-orm/pg-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FEATURES } from "./index";

const here = path.dirname(fileURLToPath(import.meta.url));
const folders = readdirSync(here).filter((f) => statSync(path.join(here, f)).isDirectory());

/** Drizzle identifier (`ssoLinks`) → table name (`sso_links`), for every table of schema.ts. */
const tableOf = new Map(
  Object.entries(schema)
    .filter(([, value]) => is(value, PgTable))
    .map(([identifier, table]) => [identifier, getTableName(table as PgTable)]),
);
const TABLES = [...new Set(tableOf.values())].sort();

/** Tables no feature owns: the platform's, used through `deps` by every feature. */
const PLATFORM_TABLES: Record<string, string> = {
  rate_limits: "src/server/lib/rate-limit.ts: deps.limits, every feature's limits in one table (decision 002)",
};

/**
 * The places where a feature names a table it does not own, each with why. Every other use goes through the
 * owner's functions or SQL fragments. An exception no longer needed fails the test (remove it).
 */
const EXCEPTIONS: Record<string, string> = {
  "codes → users":
    "decision 003: a look-up is one statement that reads the code's owner and adds to their codes_verified (and generation to codes_generated)",
  "codes → organisations":
    "decision 003: the look-up's one statement reads the owner's organisation for the widget's answer (its name, and its website when verified); its status through organisationActiveSql",
  "codes → audit_log":
    "decision 003: a failed look-up writes its audit row in the look-up's own statement; the guessing watch counts them",
  "users → organisations":
    "the admin's lists search accounts by their organisation's website and answer its name and website, in SQL with one count and one page; the profile reads both with the account",
  "calls → users":
    "the customer's status and the employee's call read the employee's name with the call in one statement (the status read is on the component's hot path)",
  "calls → organisations":
    "the status read and the token check read the organisation's name with the call or token in one statement (its status through organisationActiveSql)",
  "calls → audit_log":
    "a call's start, end and answer are audited in the same statement that changes the call (as decision 003's look-up)",
  "calls → webhook_deliveries":
    "retention and the customer's erasure delete the deliveries that name a call or customer, in their own statement (to move behind a webhooks function)",
  "calls → api_keys": "a status token dies with the key that minted it: the token check reads the key's revocation",
};

/** The non-test TypeScript files of a feature's folder. */
function sourcesOf(feature: string) {
  const dir = path.join(here, feature);
  return readdirSync(dir)
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))
    .map((f) => ({ file: `${feature}/${f}`, text: readFileSync(path.join(dir, f), "utf8") }));
}

/** The tables a source names: Drizzle identifiers it imports from schema.ts, and table names in its SQL. */
function tablesNamedIn(text: string): Set<string> {
  const named = new Set<string>();
  for (const m of text.matchAll(/import\s*(?:type\s*)?\{([^}]*)\}\s*from\s*["']@server\/db\/schema["']/g)) {
    for (const part of m[1]!.split(",")) {
      const identifier = part
        .trim()
        .replace(/^type\s+/, "")
        .split(/\s+as\s+/)[0]!;
      const table = tableOf.get(identifier);
      if (table) named.add(table);
    }
  }
  if (/import\s*\*\s*as\s+\w+\s+from\s*["']@server\/db\/schema["']/.test(text)) named.add("(all of schema.ts)");
  for (const literal of text.matchAll(/`[^`]*`/g)) {
    for (const m of literal[0].matchAll(
      /\b(?:from|join|update|into|table|truncate|exists)\s+(?:only\s+)?([a-z_]+)/gi,
    )) {
      if (TABLES.includes(m[1]!)) named.add(m[1]!);
    }
  }
  return named;
}

/** The features a source imports (`@server/features/<name>`, statically, dynamically or re-exported). */
function featuresImportedBy(text: string): Set<string> {
  const imported = new Set<string>();
  for (const m of text.matchAll(
    /(?:from\s*|import\s*\(?\s*)["'`]@server\/features\/([a-z0-9-]+)(?:\/[^"'`]*)?["'`]/g,
  )) {
    if (folders.includes(m[1]!)) imported.add(m[1]!);
  }
  return imported;
}

describe("the features' descriptors", () => {
  it("each folder's index.ts exports its feature's descriptor as <name>Feature, and the registry lists exactly those", async () => {
    for (const feature of FEATURES) {
      const entry = (await import(`./${feature.name}/index.ts`)) as Record<string, unknown>;
      const exportName = `${feature.name.replace(/-(\w)/g, (_, c: string) => c.toUpperCase())}Feature`;
      expect(entry[exportName], `${feature.name}/index.ts exports ${exportName}`).toBe(feature);
    }
    // The registry imports descriptors only, never a feature's internals.
    const registry = readFileSync(path.join(here, "index.ts"), "utf8");
    const sources = [...registry.matchAll(/from\s*["']([^"']+)["']/g)].map((m) => m[1]!);
    expect(sources.filter((s) => !/^\.\/[a-z0-9-]+$/.test(s) && s !== "./feature")).toEqual([]);
  });

  it("every table of schema.ts is owned by exactly one feature (or is the platform's)", () => {
    const owners = new Map<string, string[]>();
    for (const feature of FEATURES) {
      for (const table of feature.tables ?? []) owners.set(table, [...(owners.get(table) ?? []), feature.name]);
      for (const table of Object.keys(feature.erasureKeeps ?? {})) {
        expect(feature.tables ?? [], `${feature.name} keeps ${table} on erasure: it must own it`).toContain(table);
      }
    }
    const problems: string[] = [];
    for (const table of TABLES) {
      const of = owners.get(table) ?? [];
      if (table in PLATFORM_TABLES) {
        if (of.length > 0) problems.push(`${table}: the platform's, but claimed by ${of.join(", ")}`);
      } else if (of.length !== 1) problems.push(`${table}: owned by ${of.length ? of.join(", ") : "no feature"}`);
    }
    for (const table of owners.keys()) if (!TABLES.includes(table)) problems.push(`${table}: not in schema.ts`);
    expect(problems).toEqual([]);
  });

  it("no feature's code names a table it does not own, but for the listed exceptions", () => {
    const found = new Map<string, string[]>();
    for (const feature of FEATURES) {
      const own = new Set(feature.tables ?? []);
      for (const { file, text } of sourcesOf(feature.name)) {
        for (const table of tablesNamedIn(text)) {
          if (own.has(table) || table in PLATFORM_TABLES) continue;
          const key = `${feature.name} → ${table}`;
          found.set(key, [...(found.get(key) ?? []), file]);
        }
      }
    }
    const unlisted = [...found].filter(([key]) => !(key in EXCEPTIONS)).map(([key, files]) => `${key} (${files})`);
    expect(unlisted, "a feature names another feature's table: use the owner's function or SQL fragment").toEqual([]);
    const stale = Object.keys(EXCEPTIONS).filter((key) => !found.has(key));
    expect(stale, "exceptions no longer needed: remove them from the list").toEqual([]);
  });

  it("no feature's statement notifies: wake-ups are published after the commit (decision 010)", () => {
    // A commit that ran pg_notify waits on the server's one notification-queue lock through its WAL flush:
    // notifying writes serialise and plateau (docs/scaling.md). `deps.notifications.publish` batches instead.
    const notifying = FEATURES.flatMap((f) => sourcesOf(f.name))
      .filter(({ text }) => /pg_notify|\bnotify\s+[a-z_]/i.test(text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "")))
      .map(({ file }) => file);
    expect(notifying).toEqual([]);
  });

  it("every feature of the registry has its row in docs/spec-coverage.md", () => {
    // The index at the top of the coverage page: a new feature names where its requirements are checked.
    const page = readFileSync(path.join(here, "../../../docs/spec-coverage.md"), "utf8");
    const listed = [...page.matchAll(/^\| `features\/([a-z0-9-]+)` \| \S/gm)].map((m) => m[1]);
    expect(listed.sort()).toEqual(FEATURES.map((f) => f.name).sort());
  });

  it("the features' import graph has no cycle", () => {
    const graph = new Map<string, Set<string>>();
    for (const name of folders) {
      const edges = new Set<string>();
      for (const { text } of sourcesOf(name)) for (const other of featuresImportedBy(text)) edges.add(other);
      edges.delete(name);
      graph.set(name, edges);
    }
    const cycles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const walk = (name: string, trail: string[]) => {
      if (state.get(name) === "done") return;
      if (state.get(name) === "open") {
        cycles.push([...trail.slice(trail.indexOf(name)), name].join(" → "));
        return;
      }
      state.set(name, "open");
      for (const next of graph.get(name) ?? []) walk(next, [...trail, name]);
      state.set(name, "done");
    };
    for (const name of folders) walk(name, []);
    expect(cycles).toEqual([]);
    // The check sees edges: the users home is imported by most features.
    expect(graph.get("admin")).toContain("users");
  });
});

/** Tables of the calls feature, whose `erase` is being written with the feature itself (issue 33's lead merges it). */
/** Tables with a person's column whose owner's erase is still to come (none now). */
const ERASURE_PENDING: Record<string, string> = {};

describe("erasure's reach", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it("every table with a person's id or e-mail column is claimed by its owner's erase (or kept by id, with why)", async () => {
    // A person's id: a column referencing users, or named like one; an e-mail: a column named like one.
    const rows = await t.database.db.rows<{ table_name: string; column_name: string }>(sql`
      select c.relname as table_name, a.attname as column_name
      from pg_attribute a
      join pg_class c on c.oid = a.attrelid
      join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind = 'r' and a.attnum > 0 and not a.attisdropped and (
        a.attname ~ '(^|_)email$' or a.attname in ('user_id', 'actor_id')
        or exists (
          select 1 from pg_constraint k join pg_class target on target.oid = k.confrelid
          where k.contype = 'f' and k.conrelid = c.oid and target.relname = 'users' and a.attnum = any(k.conkey)))`);
    const personal = [...new Set(rows.map((r) => r.table_name))].sort();
    expect(personal).toEqual(expect.arrayContaining(["users", "sessions", "sso_links", "scim_users", "api_keys"]));
    const unclaimed = personal.filter((table) => {
      const owner = FEATURES.find((f) => f.tables?.includes(table));
      return !owner?.erase && !owner?.erasureKeeps?.[table] && !(table in ERASURE_PENDING);
    });
    expect(unclaimed, "no feature's erase claims these tables").toEqual([]);
    const stale = Object.keys(ERASURE_PENDING).filter(
      (table) => FEATURES.find((f) => f.tables?.includes(table))?.erase,
    );
    expect(stale, "claimed now: remove them from ERASURE_PENDING").toEqual([]);
  });
});
