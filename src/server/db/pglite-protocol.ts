/**
 * The messages between the server and the thread that runs its embedded database (pglite-thread.ts on
 * the server's side, pglite-worker.ts in the thread). Every value crosses by structured clone.
 */

/** What the thread needs to open the database: it opens it and runs the migrations on its own. */
export type WorkerData = {
  /** the data directory (locked by the server before the thread starts) */
  dir: string;
  /** the tarball a new data directory starts from, or null */
  seed: string | null;
  migrationsFolder: string;
};

/** A statement's options: row shape, and the type OIDs whose values stay text (Drizzle's identity parsers). */
export type QueryOptions = { rowMode?: "array" | "object"; textTypes?: number[] };

export type Request =
  | { id: number; op: "query"; tx?: number; sql: string; params?: unknown[]; options?: QueryOptions }
  | { id: number; op: "exec"; tx?: number; sql: string }
  | { id: number; op: "begin" }
  | { id: number; op: "end"; tx: number; commit: boolean }
  | { id: number; op: "listen"; channel: string }
  | { id: number; op: "unlisten"; channel: string }
  | { id: number; op: "close" };

/** An error as it crossed: its message, name and own fields (SQLSTATE code, constraint, detail, …). */
export type WireError = { message: string; name: string; fields: Record<string, string | number | boolean> };

export type Reply =
  | { id: number; value: unknown }
  | { id: number; error: WireError }
  /** the database is open and migrated; how long each took in the thread */
  | { id: 0; opened: { openMs: number; migrationsMs: number } }
  | { id: 0; failed: WireError }
  | { id: 0; notify: string; payload: string };

export function toWire(err: unknown): WireError {
  if (!(err instanceof Error)) return { message: String(err), name: "Error", fields: {} };
  const fields: WireError["fields"] = {};
  for (const [key, value] of Object.entries(err)) {
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") fields[key] = value;
  }
  return { message: err.message, name: err.name, fields };
}

export function fromWire(wire: WireError): Error {
  const err = Object.assign(new Error(wire.message), wire.fields);
  err.name = wire.name;
  return err;
}
