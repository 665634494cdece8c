/**
 * The embedded database's own thread (started by pglite-thread.ts): opens PGlite on the data directory,
 * runs the migrations, then runs the server's statements one message at a time. Off the server's thread,
 * opening the database overlaps with loading the server's modules at a start, and PostgreSQL's work
 * overlaps with the server's HTTP work under load (bench/README.md).
 */
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { parentPort, workerData } from "node:worker_threads";
import { PGlite, type Transaction } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import { type QueryOptions, type Reply, type Request, toWire, type WorkerData } from "./pglite-protocol.ts";

const port = parentPort;
if (!port) throw new Error("pglite-worker.ts runs as a worker thread (pglite-thread.ts starts it)");
const data = workerData as WorkerData;
const post = (reply: Reply) => port.postMessage(reply);

/**
 * PGlite on `dir`: a new (empty) data directory starts from the build's seed when there is one; a seed
 * PGlite cannot load (one from another PGlite version) is left aside for initdb, as without a seed.
 */
async function createPglite(dir: string, seed: string | null): Promise<PGlite> {
  const fresh = readdirSync(dir).length === 0;
  if (fresh && seed && existsSync(seed)) {
    try {
      return await PGlite.create(dir, { loadDataDir: new Blob([readFileSync(seed)]), startParams });
    } catch {
      for (const entry of readdirSync(dir)) rmSync(path.join(dir, entry), { recursive: true, force: true });
    }
  }
  return PGlite.create(dir, { startParams });
}

/**
 * A buffer pool of 32 MB instead of PostgreSQL's 128 MB: PGlite allocates and clears it at every open,
 * which was 0.3-0.4 s of a 0.9-1.0 s open here (bench/README.md, "Start-up"). Pages beyond it are read from
 * the operating system's cache of the data directory.
 */
const startParams = [...PGlite.defaultStartParams, "-c", "shared_buffers=32MB"];

async function open(): Promise<PGlite> {
  const started = performance.now();
  const db = await createPglite(data.dir, data.seed);
  const opened = performance.now();
  await migrate(drizzle({ client: db }), { migrationsFolder: data.migrationsFolder });
  post({ id: 0, opened: { openMs: opened - started, migrationsMs: performance.now() - opened } });
  return db;
}

const ready = open();
ready.catch((err) => {
  post({ id: 0, failed: toWire(err) });
  port.close();
});

const same = (value: unknown) => value;
const queryOptions = (options?: QueryOptions) => ({
  rowMode: options?.rowMode,
  parsers: options?.textTypes ? Object.fromEntries(options.textTypes.map((oid) => [oid, same])) : undefined,
});

/** Open transactions by number, each waiting for the server's commit or rollback. */
const transactions = new Map<number, { tx: Transaction; end: (request: { id: number; commit: boolean }) => void }>();
let lastTx = 0;
const ROLLBACK = Symbol("rollback");

/** One unlisten per channel listened to; the server's side fans a notification out to its listeners. */
const channels = new Map<string, () => Promise<void>>();

/** Where a statement runs: its open transaction, or the database itself. */
function runsOn(db: PGlite, tx: number | undefined): PGlite | Transaction {
  const on = tx === undefined ? db : transactions.get(tx)?.tx;
  if (!on) throw new Error("the transaction has ended");
  return on;
}

async function handle(db: PGlite, request: Request): Promise<unknown> {
  switch (request.op) {
    case "query":
      return runsOn(db, request.tx).query(request.sql, request.params, queryOptions(request.options));
    case "exec":
      return runsOn(db, request.tx).exec(request.sql);
    case "begin":
      return new Promise<number>((began, failed) => {
        const id = ++lastTx;
        let endId = 0;
        db.transaction(async (tx) => {
          const end = new Promise<boolean>((resolve) => {
            transactions.set(id, {
              tx,
              end: (r) => {
                endId = r.id;
                resolve(r.commit);
              },
            });
          });
          began(id);
          if (!(await end)) throw ROLLBACK;
        })
          .then(
            () => post({ id: endId, value: null }),
            (err) => {
              if (endId === 0) failed(err);
              else if (err === ROLLBACK) post({ id: endId, value: null });
              else post({ id: endId, error: toWire(err) });
            },
          )
          .finally(() => transactions.delete(id));
      });
    case "end": {
      const open = transactions.get(request.tx);
      if (!open) throw new Error("the transaction has ended");
      open.end(request);
      return ENDING;
    }
    case "listen":
      if (!channels.has(request.channel)) {
        const channel = request.channel;
        channels.set(channel, await db.listen(channel, (payload) => post({ id: 0, notify: channel, payload })));
      }
      return null;
    case "unlisten": {
      const unlisten = channels.get(request.channel);
      channels.delete(request.channel);
      await unlisten?.();
      return null;
    }
    case "close":
      await db.close();
      return null;
  }
}

/** "end" is answered when the transaction has committed or rolled back, by its "begin"'s handler. */
const ENDING = Symbol("ending");

port.on("message", async (request: Request) => {
  let db: PGlite;
  try {
    db = await ready;
  } catch (err) {
    post({ id: request.id, error: toWire(err) });
    return;
  }
  try {
    const value = await handle(db, request);
    if (value !== ENDING) post({ id: request.id, value });
    if (request.op === "close") port.close();
  } catch (err) {
    post({ id: request.id, error: toWire(err) });
  }
});
