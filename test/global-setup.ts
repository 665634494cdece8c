/**
 * Vitest global set-up (once per project, before its workers start): a migrated database every test can
 * start from, instead of migrating one per test. PGlite: the build's seed (scripts/pglite-seed.ts), which
 * `freshDatabase` loads (and then reuses within a file, emptied between tests). PostgreSQL: a migrated template
 * database that each worker's test databases are created from, removed with them at the end.
 */
import { randomBytes } from "node:crypto";
import { openDatabase } from "@server/db/client";
import type { TestProject } from "vitest/node";
import { pgliteSeed } from "../scripts/pglite-seed";
import { onPostgres } from "./postgres";

export default async function setup(project: TestProject) {
  const base = process.env.TEST_DATABASE_URL;
  if (project.config.env?.TEST_DB === "postgres" && base) {
    const name = `cp_template_${randomBytes(6).toString("hex")}`;
    await onPostgres(base, `create database ${name}`);
    const url = new URL(base);
    url.pathname = `/${name}`;
    const database = await openDatabase({ databaseUrl: url.toString() });
    await database.close();
    project.provide("postgresTemplate", name);
    return async () => {
      // The test databases made from it (test/helpers.ts names them after it), kept for reuse until now.
      const made = await onPostgres<{ datname: string }>(
        base,
        `select datname from pg_database where starts_with(datname, '${name}_')`,
      );
      await onPostgres(
        base,
        ...[...made.map((d) => d.datname), name].map((db) => `drop database if exists ${db} with (force)`),
      );
    };
  }
  // The build's seed (made once per set of migrations, shared with the browser project and the build).
  project.provide("pgliteTemplate", await pgliteSeed());
}
