/**
 * The embedded database in a thread of its own (pglite-worker.ts), behind the part of PGlite's API the
 * server uses: query, exec, transaction, listen, close. The thread starts opening the data directory as
 * soon as it is made, so a start need not wait for it before loading the rest of the server; statements
 * sent before it is open wait in order.
 */
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { damagedDataDir, lockDataDir } from "./embedded-lock";
import { migrationsFolder, PGLITE_SEED } from "./paths";
import { fromWire, type QueryOptions, type Reply, type Request, type WorkerData } from "./pglite-protocol";

type Result = {
  rows: Record<string, unknown>[];
  fields: { name: string; dataTypeID: number }[];
  affectedRows?: number;
};
/** A statement's options as Drizzle passes them to PGlite: its parsers are all `(value) => value`. */
type Options = { rowMode?: "array" | "object"; parsers?: Record<number, unknown> };
type Queries = {
  query<T>(sql: string, params?: unknown[], options?: Options): Promise<Result & { rows: T[] }>;
  exec(sql: string): Promise<Result[]>;
};

export type PgliteThread = Queries & {
  /** the database is open and migrated (rejects with why not) */
  readonly ready: Promise<{ openMs: number; migrationsMs: number }>;
  transaction<T>(fn: (tx: Queries) => Promise<T>): Promise<T>;
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
  /**
   * resolves with why, when the thread ends after opening without `close()` being asked (an uncaught error
   * in it, such as PostgreSQL's WebAssembly aborting): from then on every statement fails
   */
  readonly lost: Promise<Error>;
};

/** Each thread's worker, for `terminate` (tests use it to lose a thread as a crash would). */
const workers = new WeakMap<PgliteThread, Worker>();

/** Ends the thread at once, as a crash in it would: it is `lost`, not closed. */
export async function terminate(thread: PgliteThread): Promise<void> {
  await workers.get(thread)?.terminate();
}

/** A request before `call` numbers it. */
type Unnumbered<R> = R extends unknown ? Omit<R, "id"> : never;
type Waiting = { resolve: (value: unknown) => void; reject: (err: Error) => void };

/**
 * Running from the sources (tests, `npm run dev:server`), the thread's TypeScript runs with Node's own type
 * stripping (so pglite-worker.ts imports its one local module with its .ts extension): a worker started
 * through tsx took about 1.8 s to load here, with type stripping about 0.8 s; the build's JavaScript 0.1 s.
 */
const fromSources = import.meta.url.endsWith(".ts");
const workerFile = fileURLToPath(new URL(`./pglite-worker.${fromSources ? "ts" : "js"}`, import.meta.url));

/** Why statements fail once the thread is gone: a 503 to callers (lib/database-errors.ts), like a lost server. */
function stopped(why: string): Error {
  return Object.assign(new Error(`The embedded database stopped: ${why}`), { code: "57P01" });
}

/**
 * Makes and locks the data directory `dir` for this process and starts its thread, which opens the
 * database (a new directory from `seed`: default the build's PGLITE_SEED, null none) and migrates it.
 */
export function startEmbedded(dir: string, seed: string | null = PGLITE_SEED): PgliteThread {
  mkdirSync(dir, { recursive: true });
  const unlock = lockDataDir(dir);
  const data: WorkerData = { dir, seed, migrationsFolder };
  const worker = new Worker(workerFile, {
    workerData: data,
    execArgv: fromSources ? ["--experimental-strip-types"] : [],
  });
  const waiting = new Map<number, Waiting>();
  const listeners = new Map<string, Set<(payload: string) => void>>();
  let lastId = 0;
  let gone: Error | null = null;
  let closing = false;
  let isOpen = false;
  let lose!: (err: Error) => void;
  const lost = new Promise<Error>((resolve) => {
    lose = resolve;
  });
  let opened!: (times: { openMs: number; migrationsMs: number }) => void;
  let failed!: (err: Error) => void;
  const ready = new Promise<{ openMs: number; migrationsMs: number }>((resolve, reject) => {
    opened = resolve;
    failed = reject;
  });
  ready.catch(() => {});

  const end = (err: Error) => {
    gone ??= err;
    for (const w of waiting.values()) w.reject(gone);
    waiting.clear();
  };

  worker.on("message", (reply: Reply) => {
    if (reply.id === 0) {
      if ("opened" in reply) {
        isOpen = true;
        opened(reply.opened);
      } else if ("failed" in reply) {
        const err = damagedDataDir(dir, fromWire(reply.failed));
        failed(err);
        end(err);
      } else if ("notify" in reply) for (const listener of listeners.get(reply.notify) ?? []) listener(reply.payload);
      return;
    }
    const w = waiting.get(reply.id);
    if (!w) return;
    waiting.delete(reply.id);
    if ("error" in reply) w.reject(fromWire(reply.error));
    else w.resolve((reply as { value: unknown }).value);
  });
  worker.on("error", (err) => {
    // Uncaught in the thread: every statement from now on fails (503) and /readyz says so; restart the server.
    console.error(`The embedded database's thread failed: ${err.stack ?? err.message}`);
    failed(damagedDataDir(dir, err));
    end(stopped(err.message));
  });
  worker.on("exit", (code) => {
    unlock();
    const err = stopped(`its thread exited (${code})`);
    failed(err);
    end(err);
    if (isOpen && !closing) lose(gone ?? err);
  });

  function call<T>(request: Unnumbered<Request>): Promise<T> {
    if (gone) return Promise.reject(gone);
    const id = ++lastId;
    return new Promise<T>((resolve, reject) => {
      waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      worker.postMessage({ ...request, id });
    });
  }

  const queries = (tx?: number): Queries => ({
    query: (sql, params, options) => call({ op: "query", tx, sql, params, options: wireOptions(options) }),
    exec: (sql) => call({ op: "exec", tx, sql }),
  });

  const thread: PgliteThread = {
    ready,
    lost,
    ...queries(),
    async transaction(fn) {
      const tx = await call<number>({ op: "begin" });
      let result: Awaited<ReturnType<typeof fn>>;
      try {
        result = await fn(queries(tx));
      } catch (err) {
        // The caller's error is the one that matters, even when the rollback fails too (the thread gone).
        await call({ op: "end", tx, commit: false }).catch(() => {});
        throw err;
      }
      await call({ op: "end", tx, commit: true });
      return result;
    },
    async listen(channel, onPayload) {
      let set = listeners.get(channel);
      if (!set) {
        set = new Set();
        listeners.set(channel, set);
        await call({ op: "listen", channel });
      }
      set.add(onPayload);
      return async () => {
        set.delete(onPayload);
        if (set.size === 0 && listeners.get(channel) === set) {
          listeners.delete(channel);
          await call({ op: "unlisten", channel });
        }
      };
    },
    async close() {
      if (gone) return;
      closing = true;
      const exited = new Promise((resolve) => worker.once("exit", resolve));
      await call({ op: "close" }).catch(() => {});
      await exited;
    },
  };
  workers.set(thread, worker);
  return thread;
}

function wireOptions(options?: Options): QueryOptions | undefined {
  if (!options) return undefined;
  return {
    rowMode: options.rowMode,
    textTypes: options.parsers ? Object.keys(options.parsers).map(Number) : undefined,
  };
}
