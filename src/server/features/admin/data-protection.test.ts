import { auditLog } from "@server/db/schema";
import { FEATURES } from "@server/features";
import { checkpointAudit, verifyAudit } from "@server/features/audit";
import { applyRetention } from "@server/features/audit/retention";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { ERROR_CODES } from "@shared/error-codes";
import {
  auditRows,
  createEmployee,
  createEmployer,
  generate,
  signInAdmin,
  TRUST_PROXY_ENV,
  tableText,
  verify,
} from "@test/fixtures";
import { Browser, buildTestApp, signIn, type TestApp } from "@test/helpers";
import { eq, sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp({ env: TRUST_PROXY_ENV });
});
afterEach(async () => {
  await t?.close();
});

const DAY_MS = 86_400_000;
/**
 * Every table with a person's id or e-mail, from the features' descriptors: those their `erase` claims and
 * those they keep by id only (features/descriptors.test.ts checks that this is every such table).
 */
const PERSONAL_TABLES = FEATURES.flatMap((f) => [
  ...(f.erase ? (f.tables ?? []) : []),
  ...Object.keys(f.erasureKeeps ?? {}),
]);

describe("GET /api/account/export", () => {
  it("is a JSON attachment of the caller's profile, sessions, codes (no words) and audit events, naming nobody else", async () => {
    const employer = await createEmployer(t);
    const alice = await createEmployee(t, employer.org.id, employer.domain, { fullName: "Alice Exported" });
    const bob = await createEmployee(t, employer.org.id, employer.domain, { fullName: "Bob Other" });
    const aliceBrowser = await signIn(t, alice.email);
    const code = await generate(aliceBrowser);
    await signIn(t, bob.email);
    const boss = await signIn(t, employer.user.email);
    expect((await boss.post(`/api/employer/deactivate-employee/${bob.id}`)).statusCode).toBe(200);

    const res = await aliceBrowser.get("/api/account/export");
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-disposition"]).toMatch(/^attachment; filename="callproof-account-\d+\.json"$/);
    const data = res.json();
    expect(Object.keys(data)).toEqual(
      expect.arrayContaining(["profile", "sessions", "passkeys", "codes", "auditEvents"]),
    );
    expect(data.profile).toMatchObject({ id: alice.id, email: alice.email, fullName: "Alice Exported" });
    expect(data.sessions.length).toBeGreaterThan(0);
    expect(data.codes).toEqual([expect.objectContaining({ id: code.id, status: "live" })]);
    const actions = data.auditEvents.map((e: { action: string }) => e.action);
    expect(actions).toEqual(expect.arrayContaining([AUDIT_ACTIONS.login, AUDIT_ACTIONS.generateCode]));
    const text = res.body;
    expect(Object.keys(data.codes[0]).sort()).toEqual(["createdAt", "expiresAt", "id", "site", "status", "verifiedAt"]);
    for (const secret of [code.words.join(" "), bob.email, "Bob Other", employer.user.email, alice.passwordHash]) {
      expect(text).not.toContain(secret);
    }

    // The employer's export names the deactivated employee only by id.
    const bossExport = (await boss.get("/api/account/export")).body;
    expect(bossExport).toContain(AUDIT_ACTIONS.deactivateEmployee);
    expect(bossExport).not.toContain(bob.email);
  });

  it("is refused without a session", async () => {
    expect((await t.app.inject({ method: "GET", url: "/api/account/export" })).statusCode).toBe(401);
  });
});

describe("POST /api/admin/accounts/:id/erase", () => {
  it("erases the account: it cannot sign in, and its name and e-mail appear nowhere; its codes stop", async () => {
    const employer = await createEmployer(t);
    const alice = await createEmployee(t, employer.org.id, employer.domain, { fullName: "Alice Erasable" });
    const aliceBrowser = await signIn(t, alice.email);
    const code = await generate(aliceBrowser);
    const boss = await signIn(t, employer.user.email);
    await boss.post(`/api/employer/deactivate-employee/${alice.id}`);
    const { browser: admin } = await signInAdmin(t);

    const erased = await admin.post(`/api/admin/accounts/${alice.id}/erase`);
    expect(erased.statusCode).toBe(200);
    expect(erased.json().message).toEqual(expect.any(String));

    for (const table of PERSONAL_TABLES) {
      const text = await tableText(t, table);
      expect(text, table).not.toContain(alice.email);
      expect(text, table).not.toContain("Alice Erasable");
    }
    const login = await new Browser(t.app, "127.0.0.1", t.config.publicOrigin).post("/api/auth/login", {
      email: alice.email,
      password: alice.password,
    });
    expect(login.json()).toMatchObject({ code: ERROR_CODES.invalidCredentials });
    expect((await aliceBrowser.get("/api/account")).statusCode).toBe(401);
    expect((await verify(t, code.words.join(" "))).json()).toMatchObject({ verified: false });
    // The audit events stay, without her data: her login is still there, by id.
    const logins = await t.database.db.select().from(auditLog).where(eq(auditLog.actorId, alice.id));
    expect(logins.length).toBeGreaterThan(0);
    expect(logins.every((e) => e.actorEmail === null && (e.ip === null || e.ip.includes("/")))).toBe(true);
    expect(await auditRows(t, AUDIT_ACTIONS.eraseAccount)).toHaveLength(1);
  });

  it("writes its audit event in the erasure's own transaction: when that write fails, nothing is erased and the log verifies", async () => {
    const employer = await createEmployer(t);
    const alice = await createEmployee(t, employer.org.id, employer.domain, { fullName: "Alice Atomic" });
    await signIn(t, alice.email);
    await checkpointAudit(t.app.deps);
    const { browser: admin } = await signInAdmin(t);
    // A fault where a crash would be: the database refuses the erasure's own audit event.
    await t.database.db.execute(sql`create function refuse_erasure_event() returns trigger language plpgsql as $$
      begin
        if new.action = ${sql.raw(`'${AUDIT_ACTIONS.eraseAccount}'`)} and new.outcome = 'success' then
          raise exception 'the erasure event cannot be written';
        end if;
        return new;
      end $$`);
    await t.database.db.execute(
      sql`create trigger refuse_erasure_event before insert on audit_log for each row execute function refuse_erasure_event()`,
    );
    expect((await admin.post(`/api/admin/accounts/${alice.id}/erase`)).statusCode).toBe(500);
    expect(await tableText(t, "users")).toContain(alice.email);
    expect(await tableText(t, "audit_log")).toContain(alice.email);
    await checkpointAudit(t.app.deps);
    expect(await verifyAudit(t.database.db, t.config.appSecret)).toMatchObject({ intact: true });

    await t.database.db.execute(sql`drop trigger refuse_erasure_event on audit_log`);
    expect((await admin.post(`/api/admin/accounts/${alice.id}/erase`)).statusCode).toBe(200);
    expect(await tableText(t, "audit_log")).not.toContain(alice.email);
    await checkpointAudit(t.app.deps);
    expect(await verifyAudit(t.database.db, t.config.appSecret)).toMatchObject({ intact: true });
  });

  it("refuses admins, unknown ids and non-admins, changing nothing", async () => {
    const { admin, browser } = await signInAdmin(t);
    expect((await browser.post(`/api/admin/accounts/${admin.id}/erase`)).statusCode).toBe(404);
    expect((await browser.post("/api/admin/accounts/999999/erase")).statusCode).toBe(404);
    const employer = await createEmployer(t);
    const boss = await signIn(t, employer.user.email);
    expect((await boss.post(`/api/admin/accounts/${employer.user.id}/erase`)).statusCode).toBe(403);
    expect(await tableText(t, "users")).toContain(employer.user.email);
  });
});

describe("customers' addresses", () => {
  it("are not in the employer's audit view; admins see them", async () => {
    const employer = await createEmployer(t);
    const site = `https://${employer.domain}`;
    await t.app.inject({
      method: "POST",
      url: "/api/reports",
      headers: { "content-type": "application/json", "x-forwarded-for": "198.51.100.23", origin: site },
      payload: JSON.stringify({ callerNumber: "+44 20 7946 0000" }),
    });
    await verify(t, "wrong wrong wrong", { origin: site, ip: "198.51.100.24" });
    const boss = await signIn(t, employer.user.email, undefined, "192.0.2.10");
    const own = (await boss.get("/api/employer/audit")).body;
    expect(own).toContain(AUDIT_ACTIONS.reportCall);
    expect(own).not.toContain("198.51.100.23");
    expect(own).not.toContain("198.51.100.24");
    expect(own).toContain("192.0.2.10"); // the employer's own sign-in
    const { browser: admin } = await signInAdmin(t);
    const all = (await admin.get("/api/admin/audit")).body;
    expect(all).toContain("198.51.100.23");
  });
});

describe("retention", () => {
  it("cuts stored addresses to /24 and /48 after RETENTION_IP_DAYS, deletes events after RETENTION_AUDIT_DAYS", async () => {
    const employer = await createEmployer(t);
    await signIn(t, employer.user.email, undefined, "203.0.113.77");
    await signIn(t, employer.user.email, undefined, "2001:db8:aaaa:bbbb::1");
    const ipsNow = async () =>
      (await t.database.db.select({ ip: auditLog.ip }).from(auditLog)).map((r) => r.ip).filter(Boolean);
    expect(await ipsNow()).toEqual(expect.arrayContaining(["203.0.113.77", "2001:db8:aaaa:bbbb::1"]));

    t.clock.advance(29 * DAY_MS);
    await applyRetention(t.app.deps);
    expect(await ipsNow()).toEqual(expect.arrayContaining(["203.0.113.77"]));

    t.clock.advance(2 * DAY_MS);
    await applyRetention(t.app.deps);
    const cut = await ipsNow();
    expect(cut).toEqual(expect.arrayContaining(["203.0.113.0/24", "2001:db8:aaaa::/48"]));
    expect(cut.join(" ")).not.toMatch(/203\.0\.113\.77|bbbb/);
    const sessions = await tableText(t, "sessions");
    expect(sessions).not.toContain("203.0.113.77");

    const before = (await t.database.db.select({ id: auditLog.id }).from(auditLog)).length;
    expect(before).toBeGreaterThan(0);
    t.clock.advance(400 * DAY_MS);
    await applyRetention(t.app.deps);
    expect(await t.database.db.select({ id: auditLog.id }).from(auditLog)).toHaveLength(0);
  });

  it("leaves the audit log append-only for everything else: a direct UPDATE or DELETE is refused", async () => {
    await createEmployer(t).then((e) => signIn(t, e.user.email));
    const refused = { cause: expect.objectContaining({ message: expect.stringMatching(/append-only/) }) };
    await expect(t.database.db.execute(sql`update audit_log set ip = null`)).rejects.toMatchObject(refused);
    await expect(t.database.db.execute(sql`delete from audit_log`)).rejects.toMatchObject(refused);
  });
});
