/**
 * Statements on the test PostgreSQL server, for the global set-up and the tests alike (nothing here
 * imports vitest, which the global set-up cannot use).
 */
import { randomBytes } from "node:crypto";
import pg from "pg";

/**
 * Runs statements one by one on one new connection to `url` (CREATE and DROP DATABASE cannot share a
 * statement or a transaction) and returns the last one's rows.
 */
export async function onPostgres<Row extends Record<string, unknown> = Record<string, unknown>>(
  url: string,
  ...statements: string[]
): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    let rows: Row[] = [];
    for (const statement of statements) rows = (await client.query<Row>(statement)).rows;
    return rows;
  } finally {
    await client.end();
  }
}

/**
 * A new, empty database on the PostgreSQL server of `baseUrl` (or a copy of `template`), and a way to drop
 * it. Used by the tests and the benchmarks so that runs never share data.
 */
export async function throwawayPostgres(baseUrl: string, prefix = "cp_test", template?: string) {
  const name = `${prefix}_${randomBytes(6).toString("hex")}`;
  // From a migrated template, one at a time: a template must have no other user while it is copied.
  if (template) {
    await onPostgres(baseUrl, "select pg_advisory_lock(724012)", `create database ${name} template ${template}`);
  } else {
    await onPostgres(baseUrl, `create database ${name}`);
  }
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  const drop = async () => {
    await onPostgres(baseUrl, `drop database if exists ${name} with (force)`);
  };
  return { url: url.toString(), drop };
}
