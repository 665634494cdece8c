/**
 * The tamper-evident audit log at scale: seeds AUDIT_ROWS (default 1,000,000) audit events into a
 * throwaway PostgreSQL database, times the checkpoint job chaining them all (as a server does, 5,000 a
 * transaction) and `audit verify` proving them.
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench -- audit-verify
 */
import { performance } from "node:perf_hooks";
import { openDatabase } from "@server/db/client";
import { checkpointAudit, verifyAudit } from "@server/features/audit/chain";
import { throwawayPostgres } from "@test/helpers";
import pg from "pg";

const base = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL;
if (!base) {
  console.error("Set BENCH_DATABASE_URL to a PostgreSQL server (postgres://postgres@127.0.0.1:5432/postgres).");
  process.exit(2);
}
const ROWS = Number(process.env.AUDIT_ROWS ?? 1_000_000);
const SECRET = "bench-secret-bench-secret-bench-secret-42";

const scratch = await throwawayPostgres(base, "cp_bench_chain");
const database = await openDatabase({ databaseUrl: scratch.url });
const seeder = new pg.Client({ connectionString: scratch.url });
await seeder.connect();
try {
  let started = performance.now();
  await seeder.query(`
    insert into audit_log (at, actor_id, actor_email, organisation_id, action, target, ip, outcome, detail)
    select now() - (g || ' seconds')::interval, g % 5000, 'user' || (g % 5000) || '@example.com', g % 200,
      case g % 3 when 0 then 'code.verify' when 1 then 'code.generate' else 'auth.login' end,
      g::text, '198.51.' || (g % 250) || '.' || (g % 200), 'success', jsonb_build_object('origin', 'https://example.com')
    from generate_series(1, ${ROWS}) g`);
  console.log(`seeded ${ROWS} events in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const log = { info() {} };
  started = performance.now();
  const head = await checkpointAudit({
    db: database.db,
    config: { appSecret: SECRET },
    clock: { now: () => new Date() },
    log,
  });
  const chainS = (performance.now() - started) / 1000;
  console.log(
    `checkpoint (chain every event): ${chainS.toFixed(1)} s, ${Math.round(ROWS / chainS)} events/s; head ${head?.position}`,
  );

  started = performance.now();
  const result = await verifyAudit(database.db, SECRET);
  const verifyS = (performance.now() - started) / 1000;
  console.log(
    `audit verify: ${verifyS.toFixed(1)} s, ${Math.round(ROWS / verifyS)} events/s: ${JSON.stringify({ intact: result.intact, events: result.events })}`,
  );
} finally {
  await seeder.end();
  await database.close();
  await scratch.drop();
}
