/**
 * A database with no migrations applied, on the engine under test, and the migrations' own SQL: for the
 * tests that apply migrations one by one to data written as an older release left it.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { migrationsFolder } from "@server/db/client";
import pg from "pg";
import { throwawayPostgres } from "./postgres";

export type Run = (statement: string) => Promise<Array<Record<string, unknown>>>;

/** A database with no migrations applied: PostgreSQL under TEST_DB=postgres, else an in-memory PGlite. */
export async function emptyDatabase(): Promise<{ run: Run; close(): Promise<void> }> {
  if (process.env.TEST_DB === "postgres") {
    const scratch = await throwawayPostgres(process.env.TEST_DATABASE_URL ?? "");
    const client = new pg.Client({ connectionString: scratch.url });
    await client.connect();
    return {
      run: async (statement) => (await client.query(statement)).rows,
      close: async () => {
        await client.end();
        await scratch.drop();
      },
    };
  }
  const db = await PGlite.create();
  return {
    run: async (statement) => (await db.exec(statement)).at(-1)?.rows ?? [],
    close: () => db.close(),
  };
}

/** The migrations in the order they are applied. */
export const journal = JSON.parse(readFileSync(path.join(migrationsFolder, "meta", "_journal.json"), "utf8")) as {
  entries: Array<{ idx: number; tag: string }>;
};

/** A migration's SQL, its statement breakpoints removed, ready to run as one script. */
export const migration = (tag: string) =>
  readFileSync(path.join(migrationsFolder, `${tag}.sql`), "utf8").replaceAll("--> statement-breakpoint", "");
