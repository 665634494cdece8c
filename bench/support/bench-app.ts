import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { buildApp } from "@server/app";
import { loadConfig } from "@server/config";
import { type Database, openDatabase } from "@server/db/client";
import { checkpointAudit } from "@server/features/audit";
import { smtpMailer } from "@server/mail/mailer";
import { throwawayPostgres } from "@test/helpers";
import { sql } from "drizzle-orm";

/**
 * A bench server's database: PGlite on disk in a new directory, or with BENCH_ENGINE=postgres a fresh
 * database on BENCH_DATABASE_URL's server (named cp_`name`_…). `dispose` closes it, drops it and removes the directory.
 */
export async function benchDatabase(name: string) {
  const engine = process.env.BENCH_ENGINE === "postgres" ? ("postgres" as const) : ("pglite" as const);
  const dataDir = mkdtempSync(path.join(tmpdir(), `callproof-${name}-`));
  let database: Database;
  let drop = async () => {};
  if (engine === "postgres") {
    const base = process.env.BENCH_DATABASE_URL;
    if (!base) throw new Error("BENCH_ENGINE=postgres needs BENCH_DATABASE_URL");
    const scratch = await throwawayPostgres(base, `cp_${name.replaceAll("-", "_")}`);
    database = await openDatabase({ databaseUrl: scratch.url, directUrl: scratch.url });
    drop = scratch.drop;
  } else {
    database = await openDatabase({ dataDir: path.join(dataDir, "db") });
  }
  const dispose = async () => {
    await database.close();
    await drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { engine, database, dataDir, dispose };
}

/**
 * The whole product as the benchmarks run it: a fresh secret, the client IP taken from X-Forwarded-For
 * (each request its own address), logging off, mail to a closed port (nothing is sent), and outbound requests
 * (webhooks) to loopback only.
 */
export async function benchApp(database: Database, dataDir: string) {
  const config = loadConfig({
    APP_SECRET: randomBytes(32).toString("base64url"),
    DATA_DIR: dataDir,
    PUBLIC_URL: "http://localhost:3000",
    TRUST_PROXY: "127.0.0.1",
    LOG_LEVEL: "silent",
    // webhooks only to receivers on this machine (verify-success's)
    OUTBOUND_ALLOWED_HOSTS: "loopback",
  });
  const app = await buildApp({
    config,
    database,
    logger: false,
    mailer: smtpMailer("smtp://127.0.0.1:9", config.mailFrom),
  });
  /**
   * Every audit row a look-up writes (the product's and the baselines' alike) is given its place in the audit
   * chain later, by the checkpoint job. verify.ts and calls.ts call this after each run, so each route is charged the
   * checkpoint of its own rows: the job's 20 s turns otherwise fall in whichever route's run is going on,
   * and that route pays for the rows of the route before it.
   */
  app.post("/bench/checkpoint", async () => {
    const [pending] = await app.deps.db.rows<{ n: number }>(
      sql`select count(*)::int as n from audit_log a where not exists (select 1 from audit_chain c where c.event_id = a.id)`,
    );
    const start = performance.now();
    await checkpointAudit(app.deps);
    return { events: pending?.n ?? 0, ms: performance.now() - start };
  });
  return { config, app };
}
