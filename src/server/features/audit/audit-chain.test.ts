import { auditLog } from "@server/db/schema";
import { createEmployee, createEmployer, generate, signInAdmin, TRUST_PROXY_ENV, verify } from "@test/fixtures";
import { buildTestApp, signIn, type TestApp } from "@test/helpers";
import { asc, sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkpointAudit, verifyAudit } from "./chain";
import { applyRetention } from "./retention";

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

/** What an attacker with the database does: switch the append-only trigger off, change rows, switch it on. */
async function tamper(statement: ReturnType<typeof sql>) {
  await t.database.db.execute(sql`alter table audit_log disable trigger user`);
  await t.database.db.execute(statement);
  await t.database.db.execute(sql`alter table audit_log enable trigger user`);
}

async function ids() {
  return (await t.database.db.select({ id: auditLog.id }).from(auditLog).orderBy(asc(auditLog.position))).map(
    (r) => r.id,
  );
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
      .execute(sql`select id from audit_log where actor_email is not null order by position limit 1`)
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

  it("names the event after a row deleted from the middle", async () => {
    await history();
    await checkpointAudit(t.app.deps);
    const [, second, third] = (await ids()) as [number, number, number];
    await tamper(sql`delete from audit_log where id = ${second}`);
    expect(await check()).toMatchObject({ intact: false, eventId: third });
  });
});
