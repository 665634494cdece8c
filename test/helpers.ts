import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { buildApp } from "@server/app";
import { type Config, loadConfig } from "@server/config";
import {
  type Database,
  type Db,
  literal,
  migratedPglite,
  openDatabase,
  STATEMENT_FUNCTION_PREFIX,
  type Statement,
} from "@server/db/client";
import { users } from "@server/db/schema";
import { startSession } from "@server/features/users";
import { type Clock, testClock } from "@server/lib/clock";
import { loggerOptions } from "@server/lib/logger";
import { hashPassword } from "@server/lib/passwords";
import { smtpMailer } from "@server/mail/mailer";
import { DRAIN_TIMEOUT_MS } from "@server/shutdown";
import type { App } from "@server/types";
import type { Role, UserStatus } from "@shared/constants";
import { fillPlaceholders, Placeholder, type SQL, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { FastifyReply, FastifyRequest } from "fastify";
import pg from "pg";
import { inject } from "vitest";
import { MailCapture } from "./mail-capture";
import { throwawayPostgres } from "./postgres";

export { MailCapture, testClock, throwawayPostgres };

declare module "vitest" {
  export interface ProvidedContext {
    /** the build's PGlite seed: a gzipped tar of a migrated data directory (scripts/pglite-seed.ts, via test/global-setup.ts) */
    pgliteTemplate: string;
    /** a migrated database on TEST_DATABASE_URL's server to create each test's from (the PostgreSQL project) */
    postgresTemplate: string;
  }
}

let template: Promise<PGlite> | undefined;

/** What the vitest global set-up provides (test/global-setup.ts), or nothing outside vitest. */
function provided(key: "pgliteTemplate" | "postgresTemplate"): string | undefined {
  try {
    return inject(key);
  } catch {
    return undefined;
  }
}

/** Builds PGlite instances: from the build's seed the global set-up provides, else by migrating one. */
async function newPglite(): Promise<PGlite> {
  const dump = provided("pgliteTemplate");
  if (!dump) {
    template ??= migratedPglite();
    return (await (await template).clone()) as PGlite;
  }
  return PGlite.create({ loadDataDir: new Blob([readFileSync(dump)]) });
}

/**
 * The catalogue of a database (columns, triggers, indexes, constraints, functions), read from pg_catalog
 * (15 ms on PGlite; 47 ms through information_schema): a database goes back to the pool only when a test
 * left it as the migrations made it.
 */
const SHAPE_SQL = `select md5(coalesce(string_agg(x, ',' order by x), '')) as shape from (
  select c.relname || '.' || a.attname || ':' || format_type(a.atttypid, a.atttypmod) || ':' || a.attnotnull::text
      || ':' || coalesce(pg_get_expr(d.adbin, d.adrelid), '') as x
    from pg_attribute a join pg_class c on c.oid = a.attrelid
    left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
    where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p', 'v', 'm') and a.attnum > 0
      and not a.attisdropped
  union all select tgrelid::regclass::text || '.' || tgname || ':' || tgenabled::text from pg_trigger where not tgisinternal
  union all select pg_get_indexdef(i.indexrelid) from pg_index i join pg_class c on c.oid = i.indexrelid
    where c.relnamespace = 'public'::regnamespace
  union all select conrelid::regclass::text || '.' || conname || ':' || pg_get_constraintdef(oid) from pg_constraint
    where connamespace = 'public'::regnamespace
  union all select proname || ':' || md5(prosrc) from pg_proc where pronamespace = 'public'::regnamespace
    and not starts_with(proname, '${STATEMENT_FUNCTION_PREFIX}')) s`;

/** What a reset needs of a connection, PGlite's or node-postgres's: rows of one statement, or run several. */
type Connection = { rows<T>(statement: string): Promise<T[]>; run(statements: string): Promise<void> };

const pgliteConnection = (pglite: PGlite): Connection => ({
  rows: async <T>(statement: string) => (await pglite.query<T>(statement)).rows,
  run: async (statements) => {
    await pglite.exec(statements);
  },
});

const postgresConnection = (client: pg.Client): Connection => ({
  rows: async <T>(statement: string) => (await client.query(statement)).rows as T[],
  run: async (statements) => {
    await client.query(statements);
  },
});

async function shapeOf(connection: Connection): Promise<string> {
  const [row] = await connection.rows<{ shape: string }>(SHAPE_SQL);
  return row?.shape ?? "";
}

/**
 * Empties a database as a new copy of the template would be (every table; sequences from 1) when its
 * shape is still `migrated`, and says whether it did: a database a test changed is not reused.
 * DELETE and VACUUM, not TRUNCATE: truncating every table (a new file each) took 64-89 ms on PGlite and
 * 150-210 ms on PostgreSQL (synced at commit), these 4-11 ms. VACUUM cuts the emptied tables back to no
 * pages, so that rows are stored in insertion order again (tests still ask for the order they compare).
 * Replica mode: the append-only log's triggers and the foreign keys' do not fire.
 */
async function emptiedAsMigrated(connection: Connection, migrated: Promise<string> | undefined): Promise<boolean> {
  if ((await shapeOf(connection)) !== (await migrated)) return false;
  const [lists] = await connection.rows<{ tables: string[]; sequences: string[] }>(`select
    array(select quote_ident(tablename) from pg_tables where schemaname = 'public') as tables,
    array(select quote_ident(sequencename) from pg_sequences where schemaname = 'public') as sequences`);
  const { tables = [], sequences = [] } = lists ?? {};
  await connection.run(`set session_replication_role = replica;
    ${tables.map((t) => `delete from ${t};`).join(" ")}
    ${sequences.map((q) => `select setval('${q}', 1, false);`).join(" ")}
    set session_replication_role = default;`);
  await connection.run(`vacuum ${tables.join(", ")}`);
  return true;
}

/** PGlite instances emptied by a finished test, for the worker's next test (one per test costs ~1 s). */
const idlePglites: PGlite[] = [];
let migratedShape: Promise<string> | undefined;

/**
 * Empties a PGlite as a new one from the seed would be (also its prepared statements, LISTENs and session
 * settings) and says whether its schema is still the migrated one.
 */
async function emptied(pglite: PGlite): Promise<boolean> {
  try {
    await pglite.exec("deallocate all; unlisten *; reset all;");
    return await emptiedAsMigrated(pgliteConnection(pglite), migratedShape);
  } catch {
    return false;
  }
}

/**
 * PostgreSQL databases a finished test left, emptied, for this worker's next test: creating one from the
 * template and dropping it (a checkpoint) for each test cost 0.5-2 s of the PostgreSQL projects' tests.
 * They are named after the template, whose global teardown drops them (test/global-setup.ts).
 */
const idlePostgres: Array<{ url: string; drop(): Promise<void> }> = [];
/** The migrated shape, read off this worker's first new database before its test. */
let postgresShape: Promise<string> | undefined;

/** A connection per reused database for reading its shape and resetting it, kept open between its tests (connecting took 20 ms). */
const keptClients = new Map<string, Promise<pg.Client>>();

function keptClient(url: string): Promise<pg.Client> {
  let connecting = keptClients.get(url);
  if (!connecting) {
    const client = new pg.Client({ connectionString: url });
    // Dropped with its database at the end (the teardown's DROP … WITH (FORCE)): nothing to report then.
    client.on("error", () => keptClients.delete(url));
    // A connection a test left in a transaction must not hold the reset up: then the database is dropped.
    connecting = client
      .connect()
      .then(() => client.query("set lock_timeout = '5s'"))
      .then(() => client);
    keptClients.set(url, connecting);
  }
  return connecting;
}

async function forgetClient(url: string) {
  const client = await keptClients.get(url)?.catch(() => null);
  keptClients.delete(url);
  await client?.end().catch(() => {});
}

/** As `emptied` for PGlite. */
async function emptiedPostgres(url: string): Promise<boolean> {
  try {
    return await emptiedAsMigrated(postgresConnection(await keptClient(url)), postgresShape);
  } catch {
    await forgetClient(url);
    return false;
  }
}

/**
 * The project "integration (pgbouncer)" (TEST_VIA_POOLER) reaches a test's database through the
 * transaction-mode PgBouncer at TEST_POOLER_URL, whose `* = host=… port=…` entry forwards any database
 * name to TEST_DATABASE_URL's server, and keeps the server itself as the direct URL (LISTEN, migrations).
 */
function viaPooler(url: string): { databaseUrl: string; directUrl?: string } {
  if (process.env.TEST_VIA_POOLER !== "1") return { databaseUrl: url };
  const pooler = process.env.TEST_POOLER_URL;
  if (!pooler) throw new Error("TEST_VIA_POOLER needs TEST_POOLER_URL (the PgBouncer in transaction mode)");
  const pooled = new URL(pooler);
  pooled.pathname = new URL(url).pathname;
  return { databaseUrl: pooled.toString(), directUrl: url };
}

/**
 * Another Database on the same PostgreSQL database as `database` (from freshDatabase): its own pool
 * and LISTEN connection, as a second process would have, through the pooler when the first goes
 * through one. null on PGlite (one process owns it: share `database` instead).
 */
export async function openAgain(database: Database): Promise<Database | null> {
  const { url, directUrl } = database as Database & { url?: string; directUrl?: string };
  return url ? openDatabase({ databaseUrl: url, directUrl }) : null;
}

/**
 * A fresh, migrated database: an empty PGlite, or a new database on TEST_DATABASE_URL's server.
 * `close()` closes it (a test may close it under a running app, as an outage); `release()`, once nothing
 * uses it any more, lets a PGlite be emptied and reused by the file's next test.
 */
export async function freshDatabase(): Promise<
  Database & { url?: string; directUrl?: string; release(): Promise<void> }
> {
  if (process.env.TEST_DB === "postgres") {
    const base = process.env.TEST_DATABASE_URL;
    if (!base) throw new Error("TEST_DB=postgres needs TEST_DATABASE_URL");
    const template = provided("postgresTemplate");
    const scratch = idlePostgres.pop() ?? (await throwawayPostgres(base, template ?? "cp_test", template));
    postgresShape ??= keptClient(scratch.url).then((client) => shapeOf(postgresConnection(client)));
    await postgresShape;
    const urls = viaPooler(scratch.url);
    const database = await openDatabase(urls);
    let closing: Promise<void> | undefined;
    // Closed once, however often: then emptied for this worker's next test, or dropped if a test changed it.
    const close = () =>
      (closing ??= (async () => {
        await database.close();
        if (template && (await emptiedPostgres(scratch.url))) idlePostgres.push(scratch);
        else {
          await forgetClient(scratch.url);
          await scratch.drop();
        }
      })());
    return { ...database, url: urls.databaseUrl, directUrl: urls.directUrl, close, release: close };
  }
  const pglite = idlePglites.pop() ?? (await newPglite());
  migratedShape ??= shapeOf(pgliteConnection(pglite));
  const database = await openDatabase({ pglite });
  return {
    ...database,
    async close() {
      if (!pglite.closed) await pglite.close();
    },
    async release() {
      if (pglite.closed) return;
      if (await emptied(pglite)) idlePglites.push(pglite);
      else await pglite.close();
    },
  };
}

export type TestApp = {
  app: App;
  mail: MailCapture;
  config: Config;
  database: Database;
  clock: ReturnType<typeof testClock>;
  /** base URL when started with listen: true */
  url: string;
  close(): Promise<void>;
};

/**
 * Builds the whole app on a fresh database with a real SMTP capture and a settable clock.
 * Pass `database` to run a second app instance on the same database.
 */
export async function buildTestApp(
  opts: {
    env?: Record<string, string>;
    listen?: boolean;
    database?: Database;
    clock?: ReturnType<typeof testClock>;
    /** receives every log line (the production logger's JSON at level info); without it the app logs nothing */
    log?: (line: string) => void;
    /** called with the built app before it is ready: to add a hook (test/openapi-conformance.ts records answers) */
    beforeReady?: (app: App) => void;
  } = {},
): Promise<TestApp> {
  const mail = await new MailCapture().start();
  const own = opts.database ? undefined : await freshDatabase();
  const database: Database = opts.database ?? (own as Database);
  const clock = opts.clock ?? testClock();
  const config = loadConfig({
    APP_SECRET: "test-secret-test-secret-test-secret-42",
    DATA_DIR: "/tmp/callproof-test-unused",
    SMTP_URL: mail.url,
    LOG_LEVEL: "silent",
    PUBLIC_URL: "http://localhost:3000",
    // Receivers in tests listen on loopback; refusal tests set OUTBOUND_ALLOWED_HOSTS=external.
    OUTBOUND_ALLOWED_HOSTS: "loopback",
    ...opts.env,
  });
  const app = await buildApp({
    config,
    database,
    clock: clock as Clock,
    mailer: smtpMailer(mail.url, config.mailFrom),
    logger: opts.log
      ? {
          ...loggerOptions({ logLevel: "info" }, { nodeEnv: "test", isTty: false }),
          stream: { write: opts.log },
        }
      : false,
  });
  opts.beforeReady?.(app);
  let url = "";
  if (opts.listen) url = await app.listen({ port: 0, host: "127.0.0.1" });
  else await app.ready();
  return {
    app,
    mail,
    config,
    database,
    clock,
    url,
    async close() {
      // As the product's stop does (shutdown.ts): what is still open after the drain limit is cut, and said,
      // so a connection the stop should have closed by itself shows in the output instead of a hung hook
      // (status-tokens' 21st-token test met one on a loaded machine that this session could not trace).
      const cut = setTimeout(() => {
        console.warn(`test app: connections still open ${DRAIN_TIMEOUT_MS} ms into its close: cutting them`);
        app.server.closeAllConnections();
      }, DRAIN_TIMEOUT_MS);
      await app.close().finally(() => clearTimeout(cut));
      await mail.close();
      await own?.release();
    },
  };
}

let seq = 0;
/** A unique e-mail address at `domain`. */
export function uniqueEmail(domain = "example.com", name = "user"): string {
  return `${name}${++seq}.${randomBytes(3).toString("hex")}@${domain}`;
}

export const GOOD_PASSWORD = "Correct-Horse-42";

/**
 * argon2id hashes by password: a test user's hash is a real one (sign-in verifies it), but one per password
 * is enough; hashing one per user cost some 40 ms of a core each, over a thousand times a run.
 */
const passwordHashes = new Map<string, Promise<string>>();
function testPasswordHash(password: string) {
  const known = passwordHashes.get(password);
  if (known) return known;
  const hash = hashPassword(password);
  passwordHashes.set(password, hash);
  return hash;
}

/** Inserts a user straight into the database (verified and active unless told otherwise). */
export async function createUser(
  t: Pick<TestApp, "database" | "clock">,
  fields: {
    email?: string;
    password?: string;
    role?: Role;
    status?: UserStatus;
    fullName?: string;
    organisationId?: number | null;
    verified?: boolean;
  } = {},
) {
  const email = (fields.email ?? uniqueEmail()).toLowerCase();
  const password = fields.password ?? GOOD_PASSWORD;
  const [user] = await t.database.db
    .insert(users)
    .values({
      email,
      fullName: fields.fullName ?? "Test User",
      passwordHash: await testPasswordHash(password),
      role: fields.role ?? "client",
      status: fields.status ?? "active",
      organisationId: fields.organisationId ?? null,
      emailVerifiedAt: fields.verified === false ? null : t.clock.now(),
      createdAt: t.clock.now(),
    })
    .returning();
  if (!user) throw new Error("user not created");
  return { ...user, password };
}

/** A cookie jar plus CSRF header for app.inject: behaves like one browser. */
export class Browser {
  private cookies = new Map<string, string>();
  constructor(
    private readonly app: App,
    /** the client address the server sees (for rate limits) */
    readonly ip = "127.0.0.1",
    private readonly origin = "http://localhost:3000",
  ) {}

  cookie(name: string) {
    return this.cookies.get(name);
  }

  /** Stores a cookie as a Set-Cookie answer would (signedIn uses it). */
  setCookie(name: string, value: string) {
    this.cookies.set(name, value);
  }

  cookieHeader() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  async request(
    method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) {
    if (method !== "GET" && !this.cookies.has("XSRF-TOKEN")) await this.request("GET", "/api/auth/whoami");
    const res = await this.app.inject({
      method,
      url,
      remoteAddress: this.ip,
      headers: {
        ...(this.cookies.size ? { cookie: this.cookieHeader() } : {}),
        ...(method !== "GET" ? { "x-xsrf-token": this.cookies.get("XSRF-TOKEN") ?? "", origin: this.origin } : {}),
        ...headers,
      },
      ...(body !== undefined ? { payload: body as object } : {}),
    });
    for (const c of res.cookies as Array<{ name: string; value: string; maxAge?: number; expires?: Date }>) {
      const expired = c.maxAge === 0 || (c.expires && c.expires.getTime() <= Date.now());
      if (expired || c.value === "") this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    return res;
  }

  get(url: string, headers?: Record<string, string>) {
    return this.request("GET", url, undefined, headers);
  }
  post(url: string, body?: unknown, headers?: Record<string, string>) {
    return this.request("POST", url, body, headers);
  }
}

/**
 * A browser already signed in as `user`, for tests about something else: the session (its row, the session
 * cookie, the signed-in hint and the CSRF token bound to it) is started by the users feature's own
 * startSession, as the sign-in route does once both steps passed, without the steps themselves (an argon2
 * check, the e-mailed code, their audit rows and mail). The sign-in tests use signIn.
 */
export async function signedIn(t: TestApp, user: { id: number }, ip = "127.0.0.1"): Promise<Browser> {
  const browser = new Browser(t.app, ip, t.config.publicOrigin);
  // What startSession reads of a request and writes to a reply; app.inject sends this user agent.
  const request = { server: t.app, sessionHash: null, ip, headers: { "user-agent": "lightMyRequest" } };
  const reply = { setCookie: (name: string, value: string) => browser.setCookie(name, value) };
  await startSession(request as unknown as FastifyRequest, reply as unknown as FastifyReply, user.id);
  return browser;
}

/** Signs a user in through both real steps (password, then the code from the captured mail). */
export async function signIn(t: TestApp, email: string, password = GOOD_PASSWORD, ip?: string): Promise<Browser> {
  const browser = new Browser(t.app, ip, t.config.publicOrigin);
  const before = t.mail.to(email).length;
  const step1 = await browser.post("/api/auth/login", { email, password });
  if (step1.statusCode !== 200) throw new Error(`login failed: ${step1.statusCode} ${step1.body}`);
  const code = await t.mail.signInCode(email, before);
  const step2 = await browser.post("/api/auth/verify-2fa", { email, code });
  if (step2.statusCode !== 200) throw new Error(`verify-2fa failed: ${step2.statusCode} ${step2.body}`);
  return browser;
}

/** A prepared statement as a repository call sends it: its text and its parameters, filled. */
export type SentStatement = { text: string; params: unknown[] };

/**
 * The statement `call` sends through `db.run`, `db.prepared` or `db.rows`, caught by a stand-in database instead of run
 * (`row` is the answer the call gets back): to read its plan (codes/plans.test.ts, calls/plans.test.ts,
 * bench/verify-profile.ts).
 */
export async function statementSent(
  call: (db: Db) => Promise<unknown>,
  row: Record<string, unknown>,
): Promise<SentStatement> {
  let sent: SentStatement | undefined;
  const caught = (query: SQL) => {
    const { sql: text, params } = new PgDialect().sqlToQuery(query);
    sent = { text, params };
    return [row];
  };
  const recorder = {
    run: async (statement: Statement, values: Record<string, unknown>) => {
      sent = { text: statement.text, params: fillPlaceholders([...statement.params], values) };
      return [row];
    },
    prepared: async (_label: string, query: SQL) => caught(query),
    rows: async (query: SQL) => caught(query),
  } as unknown as Db;
  await call(recorder);
  if (!sent) throw new Error("no statement sent");
  return sent;
}

/** A parameter as an SQL literal, for `EXECUTE name(…)` of a statement caught by `statementSent`: as PGlite's `run` writes it. */
export const sqlLiteral = (v: unknown): string => literal(v as Parameters<typeof literal>[0]);

class RolledBack extends Error {}

/**
 * How the engine plans `statement`'s text (a statement a hot one calls as a function, which PL/pgSQL plans
 * by the prepared statements' rule): prepared and executed `times` times with `values(i)` for its
 * placeholders, in a transaction rolled back, so nothing it writes is kept. PostgreSQL tries five custom
 * plans, then keeps the generic one when it costs no more than they did: { generic: times - 5, custom: 5 }.
 */
export async function planCounts(
  db: Db,
  statement: Statement,
  values: (i: number) => Record<string, unknown>,
  times = 12,
): Promise<{ generic: number; custom: number }> {
  const label = `t_planned_${randomBytes(4).toString("hex")}`;
  let counts: { generic: number; custom: number } | undefined;
  await db
    .transaction(async (tx) => {
      const raw = async (text: string) =>
        ((await tx.execute(sql.raw(text))) as unknown as { rows: Record<string, unknown>[] }).rows;
      await raw(`prepare ${label} as ${statement.text}`);
      for (let i = 0; i < times; i++) {
        const given = values(i);
        const params = statement.params.map((p) => {
          if (!(p instanceof Placeholder)) return p;
          if (!(p.name in given)) throw new Error(`no value for ${p.name} of ${statement.name}`);
          return given[p.name];
        });
        await raw(`execute ${label}(${params.map(sqlLiteral).join(", ")})`);
      }
      const [row] = await raw(
        `select generic_plans::int as generic, custom_plans::int as custom from pg_prepared_statements where name = '${label}'`,
      );
      counts = row as typeof counts;
      throw new RolledBack();
    })
    .catch((err) => {
      if (!(err instanceof RolledBack)) throw err;
    });
  if (!counts) throw new Error(`${statement.name} was not prepared`);
  return counts;
}
