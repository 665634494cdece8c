/**
 * Vitest global set-up (once per project, before its workers start): a migrated database every test can
 * start from, instead of migrating one per test. PGlite: a dump of a migrated in-memory database, which
 * `freshDatabase` loads (and then reuses within a file, emptied between tests), kept in the system's
 * temporary directory under a name that changes with the migrations. PostgreSQL: a migrated template
 * database that each worker's test databases are created from, removed with them at the end.
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { migratedPglite, migrationsFolder, openDatabase } from "@server/db/client";
import pg from "pg";
import type { TestProject } from "vitest/node";

async function onServer(baseUrl: string, statement: string) {
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

export default async function setup(project: TestProject) {
  const base = process.env.TEST_DATABASE_URL;
  if (project.config.env?.TEST_DB === "postgres" && base) {
    const name = `cp_template_${randomBytes(6).toString("hex")}`;
    await onServer(base, `create database ${name}`);
    const url = new URL(base);
    url.pathname = `/${name}`;
    const database = await openDatabase({ databaseUrl: url.toString() });
    await database.close();
    project.provide("postgresTemplate", name);
    return async () => {
      // The test databases made from it (test/helpers.ts names them after it), kept for reuse until now.
      const client = new pg.Client({ connectionString: base });
      await client.connect();
      try {
        const { rows } = await client.query<{ datname: string }>(
          "select datname from pg_database where starts_with(datname, $1)",
          [`${name}_`],
        );
        for (const { datname } of rows) await client.query(`drop database if exists ${datname} with (force)`);
      } finally {
        await client.end();
      }
      await onServer(base, `drop database if exists ${name} with (force)`);
    };
  }
  // One dump per schema, kept between runs and shared by the projects that start together (the PGlite
  // and browser projects): migrating an in-memory PGlite takes 5-10 s of a core.
  const file = path.join(os.tmpdir(), `callproof-pglite-template-${await migrationsKey()}.tar`);
  if (!existsSync(file)) {
    const pglite = await migratedPglite();
    const dump = await pglite.dumpDataDir("none");
    const partial = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, file);
    await pglite.close();
  }
  project.provide("pgliteTemplate", file);
}

/** What the migrated template depends on: the migration files and PGlite's version. */
async function migrationsKey(): Promise<string> {
  const hash = createHash("sha256");
  for (const name of readdirSync(migrationsFolder, { recursive: true }).map(String).sort()) {
    const file = path.join(migrationsFolder, name);
    if (statSync(file).isFile()) hash.update(name).update(readFileSync(file));
  }
  const manifest = path.join(import.meta.dirname, "../node_modules/@electric-sql/pglite/package.json");
  const { version } = JSON.parse(readFileSync(manifest, "utf8")) as { version: string };
  return hash.update(version).digest("hex").slice(0, 16);
}
