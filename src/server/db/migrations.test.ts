import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { freshDatabase } from "@test/helpers";
import { generateDrizzleJson, generateMigration } from "drizzle-kit/api";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { migrationsFolder } from "./client";
import * as schema from "./schema";

type SnapshotTable = {
  name: string;
  columns: Record<string, { name: string; type: string; notNull: boolean }>;
  indexes: Record<string, unknown>;
  foreignKeys: Record<string, unknown>;
  checkConstraints: Record<string, unknown>;
  uniqueConstraints: Record<string, unknown>;
};

/** A column type as the catalogue names it (serials are integers with a default; arrays are `_type`). */
function catalogueType(type: string): string {
  if (type.endsWith("[]")) return `_${catalogueType(type.slice(0, -2))}`;
  const names: Record<string, string> = {
    serial: "int4",
    bigserial: "int8",
    integer: "int4",
    bigint: "int8",
    boolean: "bool",
    "timestamp with time zone": "timestamptz",
  };
  return names[type] ?? type;
}

/** What schema.ts describes, as the database's catalogue would show it. */
function described() {
  const snapshot = generateDrizzleJson(schema) as unknown as { tables: Record<string, SnapshotTable> };
  const tables = Object.values(snapshot.tables);
  return {
    columns: tables
      .flatMap((t) =>
        Object.values(t.columns).map(
          (c) => `${t.name}.${c.name} ${catalogueType(c.type)}${c.notNull ? " not null" : ""}`,
        ),
      )
      .sort(),
    indexes: tables.flatMap((t) => Object.keys(t.indexes).map((i) => `${t.name}.${i}`)).sort(),
    checks: tables.flatMap((t) => Object.keys(t.checkConstraints).map((c) => `${t.name}.${c}`)).sort(),
    foreignKeys: tables.map((t) => `${t.name} ${Object.keys(t.foreignKeys).length}`).sort(),
  };
}

describe("migrations", () => {
  it("build exactly the tables, columns, indexes, checks and foreign keys schema.ts describes", async () => {
    const database = await freshDatabase();
    try {
      const db = database.db;
      const columns = await db.rows<{ t: string; c: string; type: string; nullable: string }>(sql`
        select table_name as t, column_name as c, udt_name as type, is_nullable as nullable
        from information_schema.columns where table_schema = 'public' and table_name not like '\\_\\_drizzle%'`);
      const indexes = await db.rows<{ t: string; i: string }>(sql`
        select tablename as t, indexname as i from pg_indexes i
        where schemaname = 'public' and not exists (
          select 1 from pg_constraint c where c.conname = i.indexname and c.contype in ('p', 'u'))`);
      const constraints = await db.rows<{ t: string; name: string; type: string }>(sql`
        select c.conrelid::regclass::text as t, c.conname as name, c.contype as type
        from pg_constraint c join pg_namespace n on n.oid = c.connamespace
        where n.nspname = 'public' and c.contype in ('c', 'f')`);
      const tables = [...new Set(columns.map((c) => c.t))];
      const found = {
        columns: columns.map((c) => `${c.t}.${c.c} ${c.type}${c.nullable === "NO" ? " not null" : ""}`).sort(),
        indexes: indexes.map((i) => `${i.t}.${i.i}`).sort(),
        checks: constraints
          .filter((c) => c.type === "c")
          .map((c) => `${c.t}.${c.name}`)
          .sort(),
        foreignKeys: tables.map((t) => `${t} ${constraints.filter((c) => c.type === "f" && c.t === t).length}`).sort(),
      };
      expect(found).toEqual(described());
    } finally {
      await database.close();
    }
  });

  it("have a last snapshot equal to schema.ts, so `npm run db:generate` on a clean tree writes nothing", async () => {
    const meta = path.join(migrationsFolder, "meta");
    const last = readdirSync(meta)
      .filter((f) => f.endsWith("_snapshot.json"))
      .sort()
      .at(-1);
    expect(last).toBeDefined();
    const snapshot = JSON.parse(readFileSync(path.join(meta, last as string), "utf8"));
    const current = generateDrizzleJson(schema, snapshot.id);
    expect(await generateMigration(snapshot, current)).toEqual([]);
  });

  it("list every SQL file in the journal, in order", () => {
    const journal = JSON.parse(readFileSync(path.join(migrationsFolder, "meta/_journal.json"), "utf8")) as {
      entries: { idx: number; tag: string }[];
    };
    const files = readdirSync(migrationsFolder)
      .filter((f) => f.endsWith(".sql"))
      .map((f) => f.replace(/\.sql$/, ""))
      .sort();
    expect(journal.entries.map((e) => e.tag)).toEqual(files);
    const idx = journal.entries.map((e) => e.idx);
    expect(idx).toEqual([...idx].sort((a, b) => a - b));
  });
});
