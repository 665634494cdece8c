import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import pg from "pg";
import { damagedDataDir, lockDataDir } from "./embedded-lock";
import * as schema from "./schema";

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

export type Database = {
  db: Db;
  kind: "pglite" | "postgres";
  /** the node-postgres pool (PostgreSQL only), for its figures */
  pool?: pg.Pool;
  close(): Promise<void>;
};

export const migrationsFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");

/** Opens PGlite under dataDir (or in memory for "memory://") or a node-postgres pool; same Drizzle API for both. */
export async function openDatabase(opts: {
  databaseUrl?: string;
  dataDir?: string;
  pglite?: PGlite;
}): Promise<Database> {
  if (opts.databaseUrl) {
    // Bounded waits: with the database unreachable a request fails fast (503) instead of hanging.
    const pool = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: 10,
      connectionTimeoutMillis: 3000,
      query_timeout: 15_000,
      statement_timeout: 10_000,
    });
    // A dropped idle connection must not crash the process; the next query gets a fresh one.
    pool.on("error", () => {});
    const db = drizzlePg(pool, { schema }) as unknown as Db;
    const client = await pool.connect();
    try {
      // Several processes may start at once: one migrates, the others wait.
      await client.query("select pg_advisory_lock(724011)");
      await migratePg(drizzlePg(client, { schema }), { migrationsFolder });
    } finally {
      await client.query("select pg_advisory_unlock(724011)").catch(() => {});
      client.release();
    }
    return { db, kind: "postgres", pool, close: () => pool.end() };
  }
  let client = opts.pglite;
  let unlock = () => {};
  if (!client) {
    const dir = opts.dataDir ?? "memory://";
    if (!dir.startsWith("memory://")) {
      mkdirSync(dir, { recursive: true });
      unlock = lockDataDir(dir);
    }
    client = await PGlite.create(dir).catch((err) => {
      unlock();
      throw damagedDataDir(dir, err);
    });
  }
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  await migratePglite(db as never, { migrationsFolder });
  const c = client;
  return {
    db,
    kind: "pglite",
    close: async () => {
      await c.close();
      unlock();
    },
  };
}

/** Rows of a raw `db.execute(sql...)` on either driver. */
export function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}
