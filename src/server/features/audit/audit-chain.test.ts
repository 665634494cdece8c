import { execFile } from "node:child_process";
import { createHash, createHmac } from "node:crypto";
import path from "node:path";
import { auditChain, auditLog } from "@server/db/schema";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import {
  auditRows,
  createEmployee,
  createEmployer,
  generate,
  signInAdmin,
  TRUST_PROXY_ENV,
  verify,
} from "@test/fixtures";
import { buildTestApp, signIn, type TestApp } from "@test/helpers";
import { asc, eq, sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkpointAudit, verifyAudit } from "./chain";
import { eraseFromAudit } from "./maintenance";
import { applyRetention, RETENTION_BATCH } from "./retention";

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp({ env: TRUST_PROXY_ENV });
});
afterEach(async () => {
  await t?.close();
});

const DAY_MS = 86_400_000;
const check = (expect?: { position: number; mac: string }) => verifyAudit(t.database.db, t.config.appSecret, expect);

/** Some history: sign-ins, a code generated and verified, failed look-ups. */
async function history() {
  const employer = await createEmployer(t);
  const alice = await createEmployee(t, employer.org.id, employer.domain, { fullName: "Alice Chained" });
  const browser = await signIn(t, alice.email, undefined, "203.0.113.9");
  const code = await generate(browser);
  await verify(t, code.words.join(" "));
  await verify(t, "wrong wrong wrong");
  await signIn(t, employer.user.email, undefined, "2001:db8:1:2::3");
  return { employer, alice };
}

/** What an attacker with the database does: switch the append-only triggers off, change rows, switch them on. */
async function tamper(statement: ReturnType<typeof sql>) {
  await t.database.db.execute(sql`alter table audit_log disable trigger user`);
  await t.database.db.execute(sql`alter table audit_chain disable trigger user`);
  await t.database.db.execute(statement);
  await t.database.db.execute(sql`alter table audit_log enable trigger user`);
  await t.database.db.execute(sql`alter table audit_chain enable trigger user`);
}

/** The events with their chain rows, if any (the chain is a table apart: migration 0028). */
const chained = sql.raw("audit_log left join audit_chain on audit_chain.event_id = audit_log.id");

/** The test database's URL on a PostgreSQL server (freshDatabase gives it); none for an embedded one. */
const databaseUrl = () => (t.database as { url?: string }).url;
/** Through a transaction-mode pooler, the operator also names the server itself (docs/operations.md). */
const directUrl = () => (t.database as { directUrl?: string }).directUrl;

/** `npm run admin -- audit verify` against the test's PostgreSQL database, as an operator runs it. */
function auditVerify(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const root = path.resolve(import.meta.dirname, "../../../..");
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", "src/server/cli.ts", "audit", "verify", ...args],
      {
        cwd: root,
        env: {
          PATH: process.env.PATH ?? "",
          HOME: process.env.HOME ?? "/tmp",
          DATABASE_URL: databaseUrl() ?? "",
          ...(directUrl() ? { DATABASE_DIRECT_URL: directUrl() } : {}),
          APP_SECRET: t.config.appSecret,
        },
        timeout: 120_000,
      },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? -1) : 0, stdout, stderr }),
    );
  });
}

/** The first row a statement returns. */
async function rowOf(statement: ReturnType<typeof sql>) {
  const { rows } = (await t.database.db.execute(statement)) as unknown as { rows: Record<string, number>[] };
  expect(rows.length).toBeGreaterThan(0);
  return rows[0] as Record<string, number>;
}

async function ids() {
  return (
    await t.database.db
      .select({ id: auditLog.id })
      .from(auditLog)
      .leftJoin(auditChain, eq(auditChain.eventId, auditLog.id))
      .orderBy(asc(auditChain.position))
  ).map((r) => r.id);
}

describe("the tamper-evident audit log", () => {
  it("chains every event once checkpointed, counts the others apart, and checks a head kept elsewhere", async () => {
    await history();
    // Events not checkpointed yet are counted apart, never as intact (the job's timer may have run already).
    const before = await check();
    expect(before.intact).toBe(true);
    expect(before.intact && before.events + before.pending).toBe((await ids()).length);

    const head = await checkpointAudit(t.app.deps);
    expect(head).not.toBeNull();
    const after = await check(head ?? undefined);
    expect(after).toMatchObject({ intact: true, pending: 0, head });
    expect(after.intact && after.events).toBe((await ids()).length);
    expect(await check({ position: head!.position, mac: "forged" })).toMatchObject({ intact: false });
  });

  it("salts every personal value of every event with 16 bytes of its own", async () => {
    // A salt shared by two values would let whoever holds one of them test guesses of the other's commit
    // (an erased address, say) with a salt that erasure did not delete.
    await history();
    await checkpointAudit(t.app.deps);
    const rows = await t.database.db.select({ salts: auditChain.salts }).from(auditChain);
    const salts = rows.flatMap((r) => Object.values(r.salts as Record<string, string>));
    expect(rows.length).toBeGreaterThan(5);
    expect(salts.length).toBe(rows.length * 4);
    for (const salt of salts) expect(Buffer.from(salt, "base64url").length).toBe(16);
    expect(new Set(salts).size).toBe(salts.length);
  });

  it.skipIf(!process.env.TEST_DATABASE_URL || process.env.TEST_DB !== "postgres")(
    "chains a backlog batch after batch, and an event that commits late below the last one chained, once, in a later run",
    async () => {
      const pool = (t.database as { pool?: import("pg").Pool }).pool;
      if (!pool) throw new Error("no pool on PostgreSQL");
      // A writer that took its event's id and has not committed yet
      const late = await pool.connect();
      try {
        await late.query("begin");
        const { rows } = await late.query(
          "insert into audit_log (at, action, outcome) values (now(), 'test.late', 'success') returning id",
        );
        const lateId = Number(rows[0].id);
        for (let i = 0; i < 35; i++) {
          await t.database.db.execute(
            sql`insert into audit_log (at, action, outcome) values (now(), 'test.backlog', 'success')`,
          );
        }
        // batches of 10: four reads above the last event chained, one look from the mark
        await checkpointAudit(t.app.deps, 10);
        const chainedIds = async () =>
          (await t.database.db.select({ id: auditChain.eventId }).from(auditChain)).map((r) => Number(r.id));
        expect(await chainedIds()).not.toContain(lateId);
        expect((await check()).intact).toBe(true);
        await late.query("commit");
      } finally {
        late.release();
      }
      await checkpointAudit(t.app.deps, 10);
      const all = (await ids()).sort((a, b) => a - b);
      const chain = (await t.database.db.select({ id: auditChain.eventId }).from(auditChain)).map((r) => Number(r.id));
      expect(chain.sort((a, b) => a - b)).toEqual(all);
      expect(await check()).toMatchObject({ intact: true, pending: 0 });
    },
  );

  it("stays intact after the product's own changes: erasure, cutting addresses, retention", async () => {
    const { alice } = await history();
    await checkpointAudit(t.app.deps);
    const { browser: admin } = await signInAdmin(t);
    expect((await admin.post(`/api/admin/accounts/${alice.id}/erase`)).statusCode).toBe(200);
    await checkpointAudit(t.app.deps);
    expect(await check()).toMatchObject({ intact: true });

    t.clock.advance(31 * DAY_MS);
    await applyRetention(t.app.deps);
    expect(await check()).toMatchObject({ intact: true });

    await signIn(t, (await createEmployer(t)).user.email); // newer events, kept
    await checkpointAudit(t.app.deps);
    t.clock.advance(380 * DAY_MS);
    const { deleted } = await applyRetention(t.app.deps);
    expect(deleted).toBeGreaterThan(0);
    const kept = await check();
    expect(kept).toMatchObject({ intact: true });
    expect(kept.intact && kept.events).toBe((await ids()).length);
  });

  it("works through a backlog of more than one batch: every address cut, every old event deleted, the chain intact", async () => {
    // A stop of some days: more events to cut, and later to delete, than one batch holds (retention.ts);
    // seven events share each time, so batches end inside a run of equal times.
    const backlog = RETENTION_BATCH * 2 + 10;
    // The app's own retention job runs 5 s after its start; this test can take longer on a loaded machine,
    // and a run of the job meanwhile would take batches this test counts. Its start-up turn now (nothing
    // to do yet) puts the next an hour away.
    await t.app.deps.background.turn();
    const start = t.clock.now().getTime() - 2 * DAY_MS;
    await t.database.db.execute(sql`
      insert into audit_log (at, action, outcome, ip)
      select ${new Date(start).toISOString()}::timestamptz + (g / 7) * interval '1 millisecond', 'auth.login', 'success',
        '198.51.100.' || (g % 250)
      from generate_series(1, ${backlog}) g`);
    await checkpointAudit(t.app.deps);
    const count = async (where: ReturnType<typeof sql>) =>
      Number(
        (await t.database.db.rows<{ n: number }>(sql`select count(*)::int as n from audit_log where ${where}`))[0]?.n,
      );
    const whole = sql`ip like '198.51.100.%' and ip not like '%/24'`;
    expect(await count(whole)).toBe(backlog);

    t.clock.advance(31 * DAY_MS);
    expect(await applyRetention(t.app.deps)).toMatchObject({ cut: backlog, deleted: 0, more: false });
    expect(await count(whole)).toBe(0);
    expect(await count(sql`ip = '198.51.100.0/24'`)).toBe(backlog);
    expect(await check()).toMatchObject({ intact: true });

    const events = await count(sql`true`);
    t.clock.advance(380 * DAY_MS);
    expect(await applyRetention(t.app.deps)).toMatchObject({ deleted: events, more: false });
    expect(await count(sql`true`)).toBe(0);
    expect(await check()).toMatchObject({ intact: true });
  });

  it("names the event after a direct UPDATE of any field, personal values included", async () => {
    await history();
    await checkpointAudit(t.app.deps);
    const [, second] = (await ids()) as [number, number];
    await tamper(sql`update audit_log set outcome = 'success', action = 'auth.logout' where id = ${second}`);
    expect(await check()).toMatchObject({ intact: false, eventId: second });
  });

  it("names a changed e-mail or address, even with the chain fields left as they were", async () => {
    await history();
    await checkpointAudit(t.app.deps);
    const [withEmail] = await t.database.db
      .execute(sql`select id from ${chained} where actor_email is not null order by position limit 1`)
      .then((r) => (r as unknown as { rows: { id: number }[] }).rows);
    await tamper(sql`update audit_log set actor_email = 'someone@else.example' where id = ${withEmail!.id}`);
    expect(await check()).toMatchObject({ intact: false, eventId: Number(withEmail!.id) });
  });

  it("names an event inserted among checkpointed ones", async () => {
    await history();
    await checkpointAudit(t.app.deps);
    await tamper(sql`insert into audit_log (id, at, action, outcome) values (-1, now(), 'auth.login', 'success')`);
    expect(await check()).toMatchObject({ intact: false, eventId: -1 });
  });

  it("names an event rewritten under a forged erasure, even once the server's own job has chained and signed it (issue 32, H1)", async () => {
    const { alice } = await history();
    // The head an operator keeps elsewhere (from the job's log line), taken before the attack.
    const kept = await checkpointAudit(t.app.deps);
    expect(kept).not.toBeNull();
    const victim = await rowOf(sql`select id, actor_id, audit_log.organisation_id from ${chained}
      where actor_id = ${alice.id} and actor_email is not null order by position limit 1`);

    // With the database and no APP_SECRET: the event now names mallory, the salts of those values are gone, and an
    // unpositioned erasure of its own account names it (once bare, once with hashes of the new values).
    await tamper(sql`update audit_log set actor_email = 'mallory@evil.test', target = 'mallory@evil.test',
      detail = '{"by": "mallory@evil.test"}'::jsonb where id = ${victim.id}`);
    await tamper(
      sql`update audit_chain set salts = salts - 'email' - 'target' - 'detail' where event_id = ${victim.id}`,
    );
    const forged = (detail: object) => sql`insert into audit_log (at, action, outcome, organisation_id, target, detail)
      values (now(), ${AUDIT_ACTIONS.eraseAccount}, 'success', ${victim.organisation_id}, ${String(victim.actor_id)},
        ${JSON.stringify(detail)}::jsonb)`;
    const hash = (v: unknown) => createHash("sha256").update(JSON.stringify(v)).digest("base64url");
    await tamper(forged({ rows: [Number(victim.id)] }));
    await tamper(
      forged({ rows: [Number(victim.id)], left: [hash(["mallory@evil.test", "mallory@evil.test", { by: "x" }])] }),
    );
    // The server's checkpoint job positions and signs the forgeries.
    const head = await checkpointAudit(t.app.deps);
    expect(head!.position).toBeGreaterThan(kept!.position);

    expect(await check()).toMatchObject({ intact: false, eventId: Number(victim.id) });
    expect(await check(kept!)).toMatchObject({ intact: false, eventId: Number(victim.id) });
    // The operator's command, on a PostgreSQL server (an embedded database is this process's own).
    if (databaseUrl()) {
      const runs = await Promise.all([[], ["--expect", `${kept!.position}:${kept!.mac}`]].map((a) => auditVerify(a)));
      for (const run of runs) {
        expect(run.stderr).toContain(`audit log altered: event ${victim.id}: its email was changed`);
        expect(run.code).toBe(1);
      }
    }
  }, 180_000); // PostgreSQL: two runs of the operator CLI (each starts a Node process with tsx)

  it("stays intact when erasures change events not checkpointed yet, and an event two erasures changed", async () => {
    const employer = await createEmployer(t);
    const alice = await createEmployee(t, employer.org.id, employer.domain, { fullName: "Alice Twice" });
    await signIn(t, alice.email);
    const boss = await signIn(t, employer.user.email);
    expect((await boss.post(`/api/employer/deactivate-employee/${alice.id}`)).statusCode).toBe(200);
    const deactivation = await rowOf(
      sql`select id from audit_log where action = ${AUDIT_ACTIONS.deactivateEmployee} and target = ${String(alice.id)}`,
    );
    const { browser: admin } = await signInAdmin(t);
    expect((await admin.post(`/api/admin/accounts/${alice.id}/erase`)).statusCode).toBe(200);
    const afterFirst = await rowOf(sql`select actor_email from audit_log where id = ${deactivation.id}`);
    expect(afterFirst.actor_email).toBe(employer.user.email);
    expect((await admin.post(`/api/admin/accounts/${employer.user.id}/erase`)).statusCode).toBe(200);
    await checkpointAudit(t.app.deps);
    expect(await check()).toMatchObject({ intact: true });
    const named = (await auditRows(t, AUDIT_ACTIONS.eraseAccount)).map((e) => e.detail?.rows);
    expect(named.every((rows) => (rows as number[]).includes(Number(deactivation.id)))).toBe(true);

    // Only what the latest erasure left is accepted: not what the first one left.
    await tamper(sql`update audit_log set actor_email = ${employer.user.email} where id = ${deactivation.id}`);
    expect(await check()).toMatchObject({ intact: false, eventId: Number(deactivation.id) });
  });

  it("still accepts an erasure from before erasures sealed what they left, and only up to the checkpoints signed then", async () => {
    const { alice } = await history();
    // The version before: the erasure event names the changed events' ids only, and checkpoints were signed
    // without the version.
    await t.database.db.transaction(async (tx) => {
      const rows = await eraseFromAudit(tx, { id: alice.id, email: alice.email, fullName: "Alice Chained" });
      await tx.insert(auditLog).values({
        at: t.clock.now(),
        action: AUDIT_ACTIONS.eraseAccount,
        outcome: "success",
        target: String(alice.id),
        detail: { rows },
      });
    });
    await checkpointAudit(t.app.deps);
    const key = createHmac("sha256", t.config.appSecret).update("callproof audit chain").digest();
    await t.database.db.execute(sql`update audit_checkpoints set signature = '' `);
    const checkpoints = (await t.database.db.execute(
      sql`select id, kind, position, mac from audit_checkpoints`,
    )) as unknown as {
      rows: { id: number; kind: string; position: number; mac: string }[];
    };
    for (const c of checkpoints.rows) {
      const v1 = createHmac("sha256", key).update(`checkpoint\0${c.kind}\0${c.position}\0${c.mac}`).digest("base64url");
      await t.database.db.execute(sql`update audit_checkpoints set signature = ${v1} where id = ${c.id}`);
    }
    expect(await check()).toMatchObject({ intact: true });

    // After the upgrade, an unsealed erasure is a forgery even once the job has chained it.
    await signIn(t, (await createEmployer(t)).user.email);
    await checkpointAudit(t.app.deps);
    expect(await check()).toMatchObject({ intact: true });
    const victim = await rowOf(
      sql`select id, actor_id from ${chained} where actor_email is not null order by position desc limit 1`,
    );
    await tamper(sql`update audit_log set actor_email = 'mallory@evil.test' where id = ${victim.id}`);
    await tamper(sql`update audit_chain set salts = salts - 'email' where event_id = ${victim.id}`);
    await tamper(sql`insert into audit_log (at, action, outcome, target, detail) values (now(), ${AUDIT_ACTIONS.eraseAccount},
      'success', ${String(victim.actor_id)}, ${JSON.stringify({ rows: [Number(victim.id)] })}::jsonb)`);
    await checkpointAudit(t.app.deps);
    expect(await check()).toMatchObject({ intact: false, eventId: Number(victim.id) });
  });

  it("names an erased event whose fields were rewritten after the erasure", async () => {
    const { alice } = await history();
    await checkpointAudit(t.app.deps);
    const { browser: admin } = await signInAdmin(t);
    expect((await admin.post(`/api/admin/accounts/${alice.id}/erase`)).statusCode).toBe(200);
    await checkpointAudit(t.app.deps);
    expect(await check()).toMatchObject({ intact: true });
    const erased = await rowOf(
      sql`select id from ${chained} where actor_id = ${alice.id} and salts is null order by position limit 1`,
    );
    await tamper(sql`update audit_log set actor_email = 'mallory@evil.test' where id = ${erased.id}`);
    expect(await check()).toMatchObject({ intact: false, eventId: Number(erased.id) });
  });

  it("names a whole address changed within its prefix and stripped of its salt, on an event an erasure sealed", async () => {
    const employer = await createEmployer(t);
    const alice = await createEmployee(t, employer.org.id, employer.domain, { fullName: "Alice Addressed" });
    const boss = await signIn(t, employer.user.email, undefined, "203.0.113.9");
    expect((await boss.post(`/api/employer/deactivate-employee/${alice.id}`)).statusCode).toBe(200);
    const { browser: admin } = await signInAdmin(t);
    expect((await admin.post(`/api/admin/accounts/${alice.id}/erase`)).statusCode).toBe(200);
    await checkpointAudit(t.app.deps);
    expect(await check()).toMatchObject({ intact: true });
    // The employer's address stays whole on the event about Alice; the mac covers only its /24.
    const deactivation = await rowOf(
      sql`select id from audit_log where action = ${AUDIT_ACTIONS.deactivateEmployee} and ip = '203.0.113.9'`,
    );
    await tamper(sql`update audit_log set ip = '203.0.113.77' where id = ${deactivation.id}`);
    await tamper(sql`update audit_chain set salts = salts - 'ip' where event_id = ${deactivation.id}`);
    expect(await check()).toMatchObject({ intact: false, eventId: Number(deactivation.id) });
  });

  it("names an erased event whose erasure event was removed", async () => {
    const { alice } = await history();
    await checkpointAudit(t.app.deps);
    const { browser: admin } = await signInAdmin(t);
    expect((await admin.post(`/api/admin/accounts/${alice.id}/erase`)).statusCode).toBe(200);
    await signIn(t, (await createEmployer(t)).user.email); // an event after the erasure
    await checkpointAudit(t.app.deps);
    const erased = await rowOf(
      sql`select id from ${chained} where actor_id = ${alice.id} and salts is null order by position limit 1`,
    );
    await tamper(sql`delete from audit_log where action = ${AUDIT_ACTIONS.eraseAccount}`);
    expect(await check()).toMatchObject({ intact: false, eventId: Number(erased.id) });
  });

  it("names the event after a row deleted from the middle", async () => {
    await history();
    await checkpointAudit(t.app.deps);
    const [, second, third] = (await ids()) as [number, number, number];
    await tamper(sql`delete from audit_log where id = ${second}`);
    expect(await check()).toMatchObject({ intact: false, eventId: third });
  });
});
