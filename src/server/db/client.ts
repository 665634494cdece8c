import { createHash } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import { fillPlaceholders, Placeholder, type SQL, sql } from "drizzle-orm";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import { type PgDatabase, PgDialect, type PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import pg from "pg";
import { batched } from "../lib/batched";
import { migrationsFolder, PGLITE_SEED } from "./paths";
import { type PgliteThread, startEmbedded } from "./pglite-thread";
import * as schema from "./schema";

export { migrationsFolder, PGLITE_SEED };

/** Raw statements beside Drizzle's query builder. Rows come back with timestamps as Date and bigints as number. */
export type RawQueries = {
  /** Runs a statement and returns its rows. */
  rows<T>(query: SQL): Promise<T[]>;
  /**
   * Runs a hot-path statement with a query plan cached per connection under `label`. The statement's
   * text must not vary between calls except through its parameters.
   */
  prepared<T>(label: string, query: SQL): Promise<T[]>;
  /**
   * Runs a statement made once by `statement` (its plan cached per connection, as `prepared` does), with
   * `values` for its placeholders: the hottest paths do not build their SQL again on every call.
   */
  run<T>(statement: Statement, values: Record<string, unknown>): Promise<T[]>;
};

/**
 * A statement turned into text once, whose values are `sql.placeholder(name)`s filled in by `run`.
 * `returns` lists its result columns with their types ("allowed boolean, …"): through a pooler it then
 * runs as a function of the same text, whose plan the server keeps (`pooledFunctions`).
 */
export type Statement = {
  readonly name: string;
  readonly text: string;
  readonly params: readonly unknown[];
  readonly returns?: string;
  /** the statements this one calls as functions (`statementFunction`'s `call`), made before its first execution */
  readonly calls?: readonly Statement[];
  /**
   * one value (a `select` of one expression, at most one row): as a function, `returns` is its type and a
   * call is an expression, with no node in the calling statement's plan (else a function scan, whose set-up
   * costs the caller on every execution)
   */
  readonly scalar?: boolean;
};

/** The database as every repository sees it: Drizzle plus raw statements. Which engine runs is known only here. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema> & RawQueries;

/** A database handle or an open transaction. */
export type Executor = Db | Parameters<Parameters<Db["transaction"]>[0]>[0];

/**
 * PostgreSQL's LISTEN/NOTIFY, across every process on the same database (PGlite: within its one process).
 * `listen` calls `onPayload` for each notification on `channel`, and `onResync` after the connection
 * was lost and found again (notifications sent meanwhile are gone: look at the data again).
 * `publish` sends a wake-up after the caller's statement committed, outside its transaction (decision 010):
 * a commit that notifies waits on the server's one notification-queue lock, so the hot writes never
 * NOTIFY themselves. Wake-ups published while a batch is being sent go together in the next one (one
 * statement, one short transaction), identical ones once. Resolves once its batch was sent.
 */
export type Notifications = {
  listen(channel: string, onPayload: (payload: string) => void, onResync?: () => void): Promise<() => Promise<void>>;
  publish(channel: string, payload: string): Promise<void>;
};

/** Every wake-up of a batch in one statement: one transaction takes the notification queue's lock once. */
const NOTIFY_BATCH = "select pg_notify(c, p) from unnest($1::text[], $2::text[]) as t(c, p)";

/**
 * `publish` over `send` (which runs NOTIFY_BATCH), batched (lib/batched.ts): at most one batch in flight per
 * process; what is published meanwhile waits for it and goes in the next, so a burst of look-ups costs a
 * few NOTIFYs. A wake-up published twice in one batch is sent once.
 */
function batchedPublish(send: (channels: string[], payloads: string[]) => Promise<unknown>) {
  const publish = batched<[string, string]>((pairs) => {
    const unique = [...new Map(pairs.map((pair) => [`${pair[0]}\n${pair[1]}`, pair])).values()];
    return send(
      unique.map(([c]) => c),
      unique.map(([, p]) => p),
    );
  });
  return (channel: string, payload: string) => publish([channel, payload]);
}

export type Database = {
  db: Db;
  notifications: Notifications;
  /** for people: "PostgreSQL" or "embedded, in <dir>" */
  description: string;
  /** the node-postgres pool (PostgreSQL only), for its figures */
  pool?: pg.Pool;
  close(): Promise<void>;
};

const dialect = new PgDialect();
type Param = string | number | boolean | null;
type Field = { name: string; dataTypeID: number };

const INT8 = 20;

/** Rows as the engine gave them, with bigint (int8) columns as numbers. */
function normalised<T>(rows: Record<string, unknown>[], fields: readonly Field[]): T[] {
  const bigints = fields.filter((f) => f.dataTypeID === INT8).map((f) => f.name);
  if (bigints.length > 0) {
    for (const row of rows) {
      for (const name of bigints) if (typeof row[name] === "string") row[name] = Number(row[name]);
    }
  }
  return rows as T[];
}

/** A statement's name: its label plus a digest of its text, so a changed text is prepared afresh. */
const nameOf = (label: string, text: string) =>
  `${label}_${createHash("sha256").update(text).digest("hex").slice(0, 12)}`;

/**
 * The name of a statement `prepared` builds on every call. A label's text is the same from call to call,
 * so its last name is kept (comparing the text is far cheaper than hashing it again on every look-up).
 */
const lastNames = new Map<string, { text: string; name: string }>();
function statementName(label: string, text: string) {
  const last = lastNames.get(label);
  if (last?.text === text) return last.name;
  const name = nameOf(label, text);
  lastNames.set(label, { text, name });
  return name;
}

/**
 * Builds a hot-path statement once (at module load), instead of on every call: building a statement of
 * several CTEs with Drizzle and turning it into text cost about 0.1 ms of a look-up's 1.4 (bench/README.md).
 */
export function statement(
  label: string,
  query: SQL,
  opts: { returns?: string; calls?: readonly Statement[]; scalar?: boolean } = {},
): Statement {
  const { text, params } = sharedParameters(dialect.sqlToQuery(query));
  return { name: nameOf(label, text), text, params, returns: opts.returns, calls: opts.calls, scalar: opts.scalar };
}

/** A parameter of a statement's text with the cast it stands with ("$3::timestamptz"). */
const PARAMETER = /\$(\d+)(::[a-z_][a-z0-9_]*(?:\[\])?)?/g;

/**
 * A statement as a PL/pgSQL function of its placeholders (each cast alike, one argument), its other values
 * written into the text: its `callWith` calls it from another statement, which lists it in `calls` so that it
 * is made first. A statement's work that another runs only sometimes then costs that other nothing but
 * a call when it does not run: PostgreSQL sets up every node of a plan on every execution, whether a row
 * reaches it or not, but a function's statement only when it is called. PL/pgSQL keeps its plan for the
 * session, as a prepared statement's. Its name holds the statement's (a digest of the text).
 */
export function statementFunction(statement: Statement): StatementFunction {
  let made = statementFunctions.get(statement);
  if (!made) {
    made = functionOf(statement);
    statementFunctions.set(statement, made);
  }
  return made;
}
type StatementFunction = {
  name: string;
  create: string;
  /**
   * The call, for the calling statement's text: an argument is the expression `given` names for its
   * placeholder (a column of the calling statement), or else the calling statement's placeholder alike.
   */
  callWith(given: Record<string, SQL>): SQL;
};
const statementFunctions = new WeakMap<Statement, StatementFunction>();

function functionOf(statement: Statement): StatementFunction {
  if (!statement.returns) throw new Error(`statement ${statement.name} has no \`returns\`: it cannot be a function`);
  const args: { placeholder: Placeholder; type: string }[] = [];
  const argumentOf = new Map<number, number>();
  const body = statement.text.replace(PARAMETER, (_, n: string, cast: string | undefined) => {
    const param = statement.params[Number(n) - 1];
    if (!(param instanceof Placeholder)) return `${literal(param as Param)}${cast ?? ""}`;
    if (!cast) throw new Error(`statement ${statement.name}: placeholder ${param.name} needs a cast to be an argument`);
    let number = argumentOf.get(Number(n));
    if (number === undefined) {
      args.push({ placeholder: param, type: cast.slice(2) });
      number = args.length;
      argumentOf.set(Number(n), number);
    }
    return `$${number}${cast}`;
  });
  const name = `${STATEMENT_FUNCTION_PREFIX}fn_${statement.name}`;
  return {
    name,
    // rows estimated at one, as the calling statement's plan expects (else PostgreSQL's default, a thousand)
    create: functionDefinition(
      name,
      args.map((a) => a.type),
      statement.returns,
      body,
      statement.scalar ? { scalar: true } : { rows: 1 },
    ),
    callWith(given) {
      return sql`${sql.raw(name)}(${sql.join(
        args.map((a) => sql`${given[a.placeholder.name] ?? a.placeholder}${sql.raw(`::${a.type}`)}`),
        sql`, `,
      )})`;
    },
  };
}

/**
 * `create function` of a statement's text as PL/pgSQL returning its rows (estimated at `rows`), or with
 * `scalar` (`Statement.scalar`) its one value, which has no row estimate.
 */
function functionDefinition(
  name: string,
  types: readonly string[],
  returns: string,
  text: string,
  shape: { rows?: number } | { scalar: true } = {},
) {
  if (text.includes("$fn$")) throw new Error(`statement ${name} cannot be quoted as $fn$`);
  const head = `create function ${name}(${types.join(", ")})`;
  if ("scalar" in shape)
    return `${head} returns ${returns} language plpgsql volatile as $fn$\nbegin\n  return (${text});\nend\n$fn$`;
  const { rows } = shape;
  // The result columns' names are PL/pgSQL variables too: where the text names a column alike, the column.
  return `${head} returns table (${returns}) language plpgsql volatile${rows ? ` rows ${rows}` : ""} as $fn$
#variable_conflict use_column
begin
  return query ${text};
end
$fn$`;
}

/**
 * One parameter per placeholder and cast, where Drizzle numbers every occurrence apart: the look-up names
 * its `now` ten times and the rate limit's `limit` ten, and each bound parameter is sent, then parsed by its
 * type's input function, on every execution. Only occurrences cast alike share a parameter (an uncast one
 * takes its type from where it stands, so it keeps its own), and values that are not placeholders keep theirs.
 */
function sharedParameters({ sql: text, params }: { sql: string; params: unknown[] }) {
  const shared: unknown[] = [];
  const numberOf = new Map<string, number>();
  const renumbered = text.replace(PARAMETER, (_, n: string, cast: string | undefined) => {
    const param = params[Number(n) - 1];
    const key = param instanceof Placeholder && cast ? `${param.name}${cast}` : null;
    let number = key ? numberOf.get(key) : undefined;
    if (number === undefined) {
      shared.push(param);
      number = shared.length;
      if (key) numberOf.set(key, number);
    }
    return `$${number}${cast ?? ""}`;
  });
  return { text: renumbered, params: shared };
}

const filled = (statement: Statement, values: Record<string, unknown>) =>
  fillPlaceholders(statement.params as unknown[], values) as Param[];

/** The prefix of the functions `pooledFunctions` makes (the tests' reset leaves them: same text, same name). */
export const STATEMENT_FUNCTION_PREFIX = "cp_stmt_";

/**
 * Through a transaction-mode pooler no prepared statement outlives its transaction (PgBouncer 1.18), so
 * a statement would be parsed and planned on every call: for the look-up's eight CTEs, more than running it
 * (through PgBouncer it served 0.75x a naive server's three small statements). A `statement` with
 * `returns` runs there as a PL/pgSQL function of the same text instead, and PL/pgSQL keeps a
 * statement's plan for the rest of its server session, as a prepared statement would.
 *
 * The function is made at first use, on the server itself (`directUrl`), under an advisory lock so that
 * processes starting together do not race: its name holds a digest of the text (one per version of
 * the statement, so processes of two versions can run side by side), and its argument types are the
 * ones the server infers for the statement's parameters. Resolves to the statement that calls it
 * (`select * from name($1, …)`), or null when it could not be made (the statement then runs unnamed, and
 * making it is tried again a minute later).
 */
function pooledFunctions(directUrl: string) {
  const made = new Map<string, Promise<string | null>>();
  return (statement: Statement): Promise<string | null> => {
    let call = made.get(statement.name);
    if (!call) {
      call = makeFunction(directUrl, statement).catch(() => {
        setTimeout(() => made.delete(statement.name), 60_000).unref();
        return null;
      });
      made.set(statement.name, call);
    }
    return call;
  };
}

/** Makes the function (unless it exists) and returns the statement that calls it. */
async function makeFunction(directUrl: string, statement: Statement): Promise<string> {
  const name = `${STATEMENT_FUNCTION_PREFIX}${statement.name}`;
  const client = new pg.Client({
    connectionString: directUrl,
    connectionTimeoutMillis: 3000,
    statement_timeout: 10_000,
  });
  client.on("error", () => {}); // a dropped connection fails the query under way, not the process
  await client.connect();
  try {
    await createOnce(client, name, async () => {
      await client.query(`prepare probe as ${statement.text}`);
      const probe = await client.query<{ types: string[] }>(
        "select parameter_types::text[] as types from pg_prepared_statements where name = 'probe'",
      );
      return functionDefinition(name, probe.rows[0]?.types ?? [], statement.returns ?? "", statement.text);
    });
    return `select * from ${name}(${statement.params.map((_, i) => `$${i + 1}`).join(", ")})`;
  } finally {
    await client.end();
  }
}

/**
 * Makes a function on a PostgreSQL server unless it exists, under an advisory lock so that processes
 * starting together do not race; `create` gives its definition.
 */
async function createOnce(client: pg.ClientBase, name: string, create: () => Promise<string>) {
  await client.query("begin");
  try {
    await client.query("select pg_advisory_xact_lock(724012)");
    const found = await client.query<{ found: boolean }>("select to_regproc($1) is not null as found", [name]);
    if (!found.rows[0]?.found) await client.query(await create());
    await client.query("commit");
  } catch (err) {
    await client.query("rollback").catch(() => {});
    throw err;
  }
}

/**
 * Runs `make` for the functions a statement calls (`calls`), once per database handle, before its first
 * execution: `ready(statement)` is null once they are made (a failure is tried again at the next one).
 */
function calledFunctions(make: (fn: StatementFunction) => Promise<void>) {
  const made = new Map<string, Promise<void> | true>();
  return (statement: Statement): Promise<void> | null => {
    if (!statement.calls) return null;
    const ready = made.get(statement.name);
    if (ready === true) return null;
    if (ready) return ready;
    const calls = statement.calls;
    const making = (async () => {
      for (const called of calls) await make(statementFunction(called));
    })();
    made.set(statement.name, making);
    making.then(
      () => made.set(statement.name, true),
      () => made.delete(statement.name),
    );
    return making;
  };
}

/**
 * node-postgres: named statements, which it prepares on each connection at first use. Through a
 * transaction-mode pooler (`pooled`) a connection is not the same server session from one statement to
 * the next, so `prepared` sends unnamed statements there (parsed and planned each time), and `run` calls
 * the statement's function (`pooledFunctions`).
 */
function postgresQueries(pool: pg.Pool, pooled?: { directUrl: string }): RawQueries {
  const callOf = pooled ? pooledFunctions(pooled.directUrl) : null;
  // one transaction, so through a pooler too
  const functionsReady = calledFunctions(async (fn) => {
    const client = await pool.connect();
    // A connection dropped while checked out fails the query under way (the look-up answers 503) and emits
    // an error on the client, which the pool no longer listens to: not the process's to crash on.
    const dropped = () => {};
    client.on("error", dropped);
    let failure: Error | undefined;
    try {
      await createOnce(client, fn.name, async () => fn.create);
    } catch (err) {
      failure = err as Error;
      throw err;
    } finally {
      client.off("error", dropped);
      // a client that failed is not given back to the pool (`release(err)` ends it)
      client.release(failure);
    }
  });
  return {
    async rows<T>(query: SQL) {
      const { sql: text, params } = dialect.sqlToQuery(query);
      const result = await pool.query(text, params);
      return normalised<T>(result.rows, result.fields);
    },
    async prepared<T>(label: string, query: SQL) {
      const { sql: text, params } = dialect.sqlToQuery(query);
      return execute<T>(statementName(label, text), text, params as Param[]);
    },
    async run<T>(statement: Statement, values: Record<string, unknown>) {
      const params = filled(statement, values);
      const ready = functionsReady(statement);
      if (ready) await ready;
      const call = callOf && statement.returns ? await callOf(statement) : null;
      if (call) {
        const result = await pool.query(call, params);
        return normalised<T>(result.rows, result.fields);
      }
      return execute<T>(statement.name, statement.text, params);
    },
  };

  async function execute<T>(name: string, text: string, values: Param[]) {
    // pooled: no name, so no server-side prepared statement outlives this transaction (PgBouncer 1.18).
    const result = await pool.query({ name: pooled ? undefined : name, text, values });
    return normalised<T>(result.rows, result.fields);
  }
}

/** A parameter as an SQL literal for EXECUTE (PGlite runs it in-process; pg's escaping handles quotes and backslashes). */
export function literal(value: Param): string {
  if (value === null) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error("non-finite number parameter");
    return String(value);
  }
  return pg.escapeLiteral(value);
}

/**
 * PGlite: PREPARE once, then EXECUTE (its query API has no named statements). Planning a statement
 * of several CTEs can cost more than running it, so the hot paths plan once.
 */
function pgliteQueries(client: Pick<PGlite | PgliteThread, "query" | "exec">): RawQueries {
  const statements = new Map<string, Promise<unknown>>();
  // one process: made unless it exists (another handle on this database may have just made it)
  const functionsReady = calledFunctions(async (fn) => {
    const found = await client.query<{ found: boolean }>("select to_regproc($1) is not null as found", [fn.name]);
    if (found.rows[0]?.found) return;
    await client.exec(fn.create).catch((err: { code?: string }) => {
      if (err.code !== "42723") throw err; // duplicate_function
    });
  });
  return {
    async rows<T>(query: SQL) {
      const { sql: text, params } = dialect.sqlToQuery(query);
      const result = await client.query<Record<string, unknown>>(text, params);
      return normalised<T>(result.rows, result.fields);
    },
    async prepared<T>(label: string, query: SQL) {
      const { sql: text, params } = dialect.sqlToQuery(query);
      return execute<T>(statementName(label, text), text, params as Param[]);
    },
    async run<T>(statement: Statement, values: Record<string, unknown>) {
      const ready = functionsReady(statement);
      if (ready) await ready;
      return execute<T>(statement.name, statement.text, filled(statement, values));
    },
  };

  async function execute<T>(name: string, text: string, params: Param[]) {
    let prepared = statements.get(name);
    if (!prepared) {
      prepared = client.query(`prepare ${name} as ${text}`);
      statements.set(name, prepared);
      // A failed PREPARE is tried again next time.
      prepared.catch(() => statements.delete(name));
    }
    await prepared;
    // The simple protocol: one message, no parse/describe round of its own for this small statement.
    const args = params.length === 0 ? "" : `(${params.map(literal).join(", ")})`;
    const [result] = await client.exec(`execute ${name}${args}`);
    return normalised<T>((result?.rows ?? []) as Record<string, unknown>[], result?.fields ?? []);
  }
}

type Listener = { channel: string; onPayload: (payload: string) => void; onResync?: () => void };

/**
 * node-postgres: one dedicated connection per process holds every LISTEN. When it drops, it is opened
 * again (growing waits, at most 5 s), every channel listened to again, and the listeners told to resync.
 */
function postgresNotifications(connectionString: string, pool: pg.Pool) {
  const listeners = new Set<Listener>();
  let client: pg.Client | null = null;
  let connecting: Promise<pg.Client> | null = null;
  let closed = false;
  let failures = 0;
  const quoted = (channel: string) => `"${channel.replace(/"/g, '""')}"`;

  async function connect(): Promise<pg.Client> {
    const c = new pg.Client({ connectionString, connectionTimeoutMillis: 3000 });
    c.on("notification", (n) => {
      for (const l of listeners) if (l.channel === n.channel) l.onPayload(n.payload ?? "");
    });
    const lost = () => {
      if (client !== c) return;
      client = null;
      c.end().catch(() => {});
      if (!closed) reconnectSoon();
    };
    c.on("error", lost);
    c.on("end", lost);
    await c.connect();
    for (const channel of new Set([...listeners].map((l) => l.channel))) await c.query(`listen ${quoted(channel)}`);
    // Closed while this connection was being opened (a reconnection under way): it is not kept.
    if (closed) {
      await c.end().catch(() => {});
      throw new Error("notifications closed");
    }
    client = c;
    return c;
  }

  function reconnectSoon() {
    const wait = Math.min(5000, 250 * 2 ** failures++);
    setTimeout(() => {
      if (closed || client || connecting) return;
      connecting = connect()
        .then((c) => {
          failures = 0;
          for (const l of listeners) l.onResync?.();
          return c;
        })
        .catch((err) => {
          reconnectSoon();
          throw err;
        })
        .finally(() => {
          connecting = null;
        });
      connecting.catch(() => {});
    }, wait).unref();
  }

  const notifications: Notifications = {
    async listen(channel, onPayload, onResync) {
      const listener = { channel, onPayload, onResync };
      const already = [...listeners].some((l) => l.channel === channel);
      listeners.add(listener);
      if (client && !already) await client.query(`listen ${quoted(channel)}`);
      else if (!client && !connecting) {
        connecting = connect().finally(() => {
          connecting = null;
        });
        await connecting;
      } else if (connecting) await connecting;
      return async () => {
        listeners.delete(listener);
      };
    },
    // On the LISTEN connection while it is up: it is idle between notifications, where the pool's
    // connections are busy with requests and a wake-up would wait its turn behind them (bench
    // verify-success: the live status's p99). Through the pool when it is down, or failed on the way
    // (a batch sent twice wakes the streams twice; each reads the code again).
    publish: batchedPublish(async (channels, payloads) => {
      const listening = client;
      if (listening) {
        try {
          await listening.query(NOTIFY_BATCH, [channels, payloads]);
          return;
        } catch {}
      }
      await pool.query(NOTIFY_BATCH, [channels, payloads]);
    }),
  };
  return {
    notifications,
    async close() {
      closed = true;
      const c = client;
      client = null;
      await c?.end().catch(() => {});
      // a reconnection under way ends its connection itself (connect sees `closed`)
      await connecting?.catch(() => {});
    },
  };
}

type LocalListeners = Map<string, Set<(payload: string) => void>>;
/** Per embedded database: the listeners `publish` reaches without a round trip to it. */
const localListeners = new WeakMap<object, LocalListeners>();

/**
 * PGlite: its own listen, within this process. Every listener of an embedded database is in this process,
 * so `publish` hands a wake-up straight to them (on the next turn of the event loop, as a notification
 * would arrive) instead of sending it through the database's one connection, behind other statements.
 */
function pgliteNotifications(pglite: Pick<PGlite | PgliteThread, "listen">): Notifications {
  const local = localListeners.get(pglite) ?? (new Map() as LocalListeners);
  localListeners.set(pglite, local);
  return {
    async publish(channel, payload) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      for (const onPayload of [...(local.get(channel) ?? [])]) onPayload(payload);
    },
    async listen(channel, onPayload) {
      const unlisten = await pglite.listen(channel, onPayload);
      const set = local.get(channel) ?? new Set();
      local.set(channel, set);
      set.add(onPayload);
      return async () => {
        set.delete(onPayload);
        // UNLISTEN fails harmlessly when the database closed first.
        await unlisten().catch(() => {});
      };
    },
  };
}

/** A new in-memory PGlite with every migration applied: tests clone it instead of migrating each time. */
export async function migratedPglite(): Promise<PGlite> {
  const client = await PGlite.create("memory://");
  await migratePglite(drizzlePglite(client, { schema }), { migrationsFolder });
  return client;
}

/**
 * Opens PGlite under dataDir (or in memory for "memory://") or a node-postgres pool; same API for both.
 * With a `directUrl` other than `databaseUrl`, `databaseUrl` is a transaction-mode pooler (PgBouncer):
 * migrations (under a session advisory lock) and LISTEN go to `directUrl`, and nothing relies on session
 * state through the pooler (no named statements, no startup parameters such as statement_timeout).
 */
export async function openDatabase(opts: {
  databaseUrl?: string;
  /** the PostgreSQL server itself (DATABASE_DIRECT_URL); default databaseUrl */
  directUrl?: string;
  dataDir?: string;
  pglite?: PGlite;
  /**
   * the embedded database's thread, started earlier by startEmbedded (main.ts starts it before loading the
   * server); the caller awaits its `ready`
   */
  embedded?: PgliteThread;
  /** the tarball a new PGlite data directory starts from: default the build's (PGLITE_SEED), null none */
  pgliteSeed?: string | null;
  /**
   * told when the database is open ("database open") and migrated ("migrations"), or for a data directory
   * on disk when its thread has opened and migrated it ("database"), for the start's timings
   */
  onStep?: (name: string) => void;
}): Promise<Database> {
  const step = opts.onStep ?? (() => {});
  if (opts.databaseUrl) {
    const directUrl = opts.directUrl ?? opts.databaseUrl;
    const pooled = directUrl !== opts.databaseUrl;
    // Bounded waits: with the database unreachable a request fails fast (503) instead of hanging. A
    // transaction-mode pooler refuses startup parameters: there the server's own statement_timeout
    // applies (docs/operations.md: set it on the role), and query_timeout still bounds the wait here.
    const pool = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: 10,
      connectionTimeoutMillis: 3000,
      query_timeout: 15_000,
      ...(pooled ? {} : { statement_timeout: 10_000 }),
    });
    // A dropped idle connection must not crash the process; the next query gets a fresh one.
    pool.on("error", () => {});
    // Migrations hold a session advisory lock: on the server itself, never through a pooler.
    let client: pg.Client | pg.PoolClient;
    let done: () => Promise<void>;
    if (pooled) {
      const direct = new pg.Client({ connectionString: directUrl, connectionTimeoutMillis: 3000 });
      await direct.connect();
      [client, done] = [direct, () => direct.end()];
    } else {
      const fromPool = await pool.connect();
      [client, done] = [fromPool, async () => fromPool.release()];
    }
    step("database open");
    try {
      // Several processes may start at once: one migrates, the others wait.
      await client.query("select pg_advisory_lock(724011)");
      await migratePg(drizzlePg(client, { schema }), { migrationsFolder });
    } finally {
      await client.query("select pg_advisory_unlock(724011)").catch(() => {});
      await done();
    }
    step("migrations");
    const db = Object.assign(
      drizzlePg(pool, { schema }),
      postgresQueries(pool, pooled ? { directUrl } : undefined),
    ) as unknown as Db;
    const listening = postgresNotifications(directUrl, pool);
    return {
      db,
      notifications: listening.notifications,
      description: "PostgreSQL",
      pool,
      close: async () => {
        await listening.close();
        await pool.end();
      },
    };
  }
  const dir = opts.dataDir ?? "memory://";
  // A data directory on disk: PGlite in its own thread (pglite-thread.ts), which migrates it too. A thread
  // the caller started is not waited for here: statements sent before it is open wait their turn.
  const thread =
    opts.embedded ?? (opts.pglite || dir.startsWith("memory://") ? undefined : startEmbedded(dir, opts.pgliteSeed));
  if (thread) {
    if (!opts.embedded) {
      await thread.ready.catch(async (err) => {
        await thread.close();
        throw err;
      });
      step("database");
    }
    const db = Object.assign(
      drizzlePglite({ client: thread as unknown as PGlite, schema }),
      pgliteQueries(thread),
    ) as unknown as Db;
    return {
      db,
      notifications: pgliteNotifications(thread),
      description: `embedded, in ${dir}`,
      close: () => thread.close(),
    };
  }
  const client = opts.pglite ?? (await PGlite.create(dir));
  step("database open");
  const orm = drizzlePglite({ client, schema });
  await migratePglite(orm, { migrationsFolder });
  step("migrations");
  const db = Object.assign(orm, pgliteQueries(client)) as unknown as Db;
  return {
    db,
    notifications: pgliteNotifications(client),
    description: `embedded, in ${dir}`,
    close: () => client.close(),
  };
}
