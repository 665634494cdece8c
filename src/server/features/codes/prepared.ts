import { createHash } from "node:crypto";
import type { PGlite } from "@electric-sql/pglite";
import type { Db } from "@server/db/client";
import type { SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import pg from "pg";

/**
 * Runs a hot-path statement with a cached query plan. Planning the verify statement (six CTEs) costs
 * about twice its execution, so it is planned once per connection: a named prepared statement on
 * node-postgres, PREPARE/EXECUTE on PGlite (which has no named statements in its query API).
 * The statement's text must not vary between calls except through its parameters.
 */
const dialect = new PgDialect();
const preparedOn = new WeakMap<object, Map<string, Promise<unknown>>>();

type Param = string | number | boolean | null;

/** A parameter as an SQL literal for EXECUTE (PGlite runs it in-process; pg's escaping handles quotes and backslashes). */
function literal(value: Param): string {
  if (value === null) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error("non-finite number parameter");
    return String(value);
  }
  return pg.escapeLiteral(value);
}

export async function executePrepared<T>(db: Db, kind: "pglite" | "postgres", label: string, query: SQL): Promise<T[]> {
  const { sql: text, params } = dialect.sqlToQuery(query);
  const name = `${label}_${createHash("sha256").update(text).digest("hex").slice(0, 12)}`;
  const client = (db as unknown as { $client: pg.Pool | PGlite }).$client;
  if (kind === "postgres") {
    // node-postgres keeps named statements per connection and prepares on first use.
    const result = await (client as pg.Pool).query({ name, text, values: params as Param[] });
    return result.rows as T[];
  }
  const pglite = client as PGlite;
  const statements = preparedOn.get(pglite) ?? new Map<string, Promise<unknown>>();
  preparedOn.set(pglite, statements);
  let prepared = statements.get(name);
  if (!prepared) {
    prepared = pglite.query(`prepare ${name} as ${text}`);
    statements.set(name, prepared);
    // A failed PREPARE is tried again next time.
    prepared.catch(() => statements.delete(name));
  }
  await prepared;
  // The simple protocol: one message, no parse/describe round of its own for this tiny statement.
  const [result] = await pglite.exec(`execute ${name}(${(params as Param[]).map(literal).join(", ")})`);
  return (result?.rows ?? []) as T[];
}
