import { API_KEY_LIMITS, API_KEY_TEXT } from "@shared/api-keys";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { ERROR_CODES } from "@shared/error-codes";
import { auditRows, createEmployer, signInAdmin, TRUST_PROXY_ENV, tableText } from "@test/fixtures";
import { type Browser, buildTestApp, createUser, signedIn, type TestApp } from "@test/helpers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

let t: TestApp;
let logLines: string[];
beforeEach(async () => {
  logLines = [];
  t = await buildTestApp({ env: TRUST_PROXY_ENV, log: (line) => logLines.push(line) });
});
afterEach(async () => {
  await t?.close();
});

async function create(browser: Browser, body: unknown = { name: "Agent desktop", scopes: ["codes:write"] }) {
  return browser.post("/api/employer/api-keys", body);
}

const v1 = (key: string, url = "/api/v1/activity") =>
  t.app.inject({ method: "GET", url, headers: { authorization: `Bearer ${key}` } });

describe("/api/employer/api-keys", () => {
  it("creates a key shown once (cpk_…), stored only as a hash, listed with its prefix, creator and times", async () => {
    const employer = await createEmployer(t);
    const other = await createUser(t, {
      role: "superuser",
      organisationId: employer.org.id,
      email: `second@${employer.domain}`,
    });
    const browser = await signedIn(t, employer.user);
    const res = await create(browser, { name: "  Genesys desktop ", scopes: ["activity:read", "codes:write"] });
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json();
    expect(created).toEqual({
      id: expect.any(Number),
      name: "Genesys desktop",
      scopes: ["codes:write", "activity:read"],
      prefix: created.key.slice(0, 12),
      key: expect.stringMatching(/^cpk_[A-Za-z0-9_-]{43}$/),
    });
    expect(res.headers["cache-control"]).toBe("no-store");

    const list = (await browser.get("/api/employer/api-keys")).json();
    expect(list).toEqual([
      {
        id: created.id,
        name: "Genesys desktop",
        scopes: ["codes:write", "activity:read"],
        prefix: created.prefix,
        createdAt: t.clock.now().toISOString(),
        lastUsedAt: null,
        createdBy: { id: employer.user.id, fullName: employer.user.fullName, email: employer.user.email },
      },
    ]);
    expect(JSON.stringify(list)).not.toContain(created.key);

    // Nowhere at rest, in the audit log, or in any log line, although it was used.
    expect((await v1(created.key)).statusCode).toBe(200);
    expect(await tableText(t, "api_keys")).not.toContain(created.key.slice(12));
    expect(JSON.stringify(await auditRows(t, AUDIT_ACTIONS.createApiKey))).not.toContain(created.key.slice(12));
    expect(logLines.join("\n")).not.toContain(created.key.slice(12));
    expect(logLines.some((l) => l.includes("/api/v1/activity"))).toBe(true);

    // Used: the list shows when.
    t.clock.advance(5_000);
    expect((await browser.get("/api/employer/api-keys")).json()[0].lastUsedAt).toBe(
      new Date(t.clock.now().getTime() - 5_000).toISOString(),
    );

    // Every superuser of the organisation is told.
    await t.app.deps.background.idle();
    for (const to of [employer.user.email, other.email]) {
      const mail = await t.mail.waitFor(to, (m) => m.subject === API_KEY_TEXT.createdMailSubject);
      expect(mail.text).toContain("Genesys desktop");
      expect(mail.text).toContain(created.prefix);
      expect(mail.text).not.toContain(created.key.slice(12));
    }
    const [audit] = await auditRows(t, AUDIT_ACTIONS.createApiKey);
    expect(audit).toMatchObject({ outcome: "success", actorId: employer.user.id, target: String(created.id) });
  });

  it("needs a sign-in within the last 15 minutes (the passkey rule), else 403 and no key", async () => {
    const employer = await createEmployer(t);
    const browser = await signedIn(t, employer.user);
    t.clock.advance(14 * 60_000);
    expect((await browser.get("/api/employer/api-keys")).statusCode).toBe(200); // keeps the session alive
    t.clock.advance(2 * 60_000);
    const res = await create(browser);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ message: API_KEY_TEXT.needsRecentSignIn, code: ERROR_CODES.recentSignInRequired });
    expect((await browser.get("/api/employer/api-keys")).json()).toEqual([]);
    const [audit] = await auditRows(t, AUDIT_ACTIONS.createApiKey);
    expect(audit).toMatchObject({ outcome: "denied", detail: { reason: "sign-in not recent" } });
    // A fresh sign-in may.
    const again = await signedIn(t, employer.user);
    expect((await create(again)).statusCode).toBe(201);
  });

  it("refuses bad input with 400 and no change, and more than 20 working keys with 409", async () => {
    const employer = await createEmployer(t);
    const browser = await signedIn(t, employer.user);
    for (const body of [
      { name: "", scopes: ["codes:read"] },
      { name: "x".repeat(101), scopes: ["codes:read"] },
      { name: "a\u202Eb", scopes: ["codes:read"] },
      { name: "ok", scopes: [] },
      { name: "ok", scopes: ["admin:everything"] },
      { name: "ok" },
    ]) {
      const res = await create(browser, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().message).toEqual(expect.any(String));
    }
    expect((await browser.get("/api/employer/api-keys")).json()).toEqual([]);

    const results = await Promise.all(
      Array.from({ length: API_KEY_LIMITS.perOrganisation + 2 }, (_, i) =>
        create(browser, { name: `key ${i}`, scopes: ["codes:read"] }),
      ),
    );
    expect(results.filter((r) => r.statusCode === 201)).toHaveLength(API_KEY_LIMITS.perOrganisation);
    const refused = results.filter((r) => r.statusCode === 409);
    expect(refused).toHaveLength(2);
    expect(refused[0]?.json().message).toBe(API_KEY_TEXT.tooMany);
    // A revoked key frees a place.
    const first = (await browser.get("/api/employer/api-keys")).json()[0];
    expect((await browser.request("DELETE", `/api/employer/api-keys/${first.id}`)).statusCode).toBe(200);
    expect((await create(browser)).statusCode).toBe(201);
  });

  it("revokes a key: it stops working at once, leaves the list, and is audited; another organisation's is 404", async () => {
    const a = await createEmployer(t);
    const b = await createEmployer(t);
    const browserA = await signedIn(t, a.user);
    const browserB = await signedIn(t, b.user);
    const key = (await create(browserA, { name: "SIEM", scopes: ["activity:read"] })).json();
    expect((await v1(key.key)).statusCode).toBe(200);

    expect((await browserB.request("DELETE", `/api/employer/api-keys/${key.id}`)).statusCode).toBe(404);
    expect((await v1(key.key)).statusCode).toBe(200);

    const res = await browserA.request("DELETE", `/api/employer/api-keys/${key.id}`);
    expect(res.statusCode).toBe(200);
    const refused = await v1(key.key);
    expect(refused.statusCode).toBe(401);
    expect(refused.json().message).toBe(API_KEY_TEXT.invalidKey);
    expect((await browserA.get("/api/employer/api-keys")).json()).toEqual([]);
    expect((await browserA.request("DELETE", `/api/employer/api-keys/${key.id}`)).statusCode).toBe(404);
    const audits = await auditRows(t, AUDIT_ACTIONS.revokeApiKey);
    expect(audits.map((r) => [r.outcome, r.organisationId])).toEqual([
      ["failure", a.org.id],
      ["success", a.org.id],
      ["failure", b.org.id],
    ]);
  });

  it("is for superusers: employees and admins get 403, signed-out 401", async () => {
    const employer = await createEmployer(t);
    const employee = await createUser(t, { organisationId: employer.org.id });
    const asEmployee = await signedIn(t, employee);
    expect((await asEmployee.get("/api/employer/api-keys")).statusCode).toBe(403);
    expect((await create(asEmployee)).statusCode).toBe(403);
    const { browser: admin } = await signInAdmin(t);
    expect((await create(admin)).statusCode).toBe(403);
    expect((await t.app.inject({ method: "GET", url: "/api/employer/api-keys" })).statusCode).toBe(401);
  });

  it("revokes a deactivated creator's keys, tells the other superusers, and a deactivated organisation's keys answer 401", async () => {
    const employer = await createEmployer(t);
    const second = await createUser(t, {
      role: "superuser",
      organisationId: employer.org.id,
      email: `deputy@${employer.domain}`,
    });
    const creator = await createUser(t, {
      role: "superuser",
      organisationId: employer.org.id,
      email: `leaver@other-${employer.domain}`,
    });
    const asCreator = await signedIn(t, creator);
    const asSecond = await signedIn(t, second);
    const leaversKey = (await create(asCreator, { name: "Leaver's key", scopes: ["activity:read"] })).json();
    const deputysKey = (await create(asSecond, { name: "Deputy's key", scopes: ["activity:read"] })).json();
    await t.app.deps.background.idle();
    const before = t.mail.to(second.email).length;

    // The admin deactivates the leaver's e-mail domain: only the leaver goes.
    const { browser: admin } = await signInAdmin(t);
    const res = await admin.post("/api/admin/deactivate-by-domain", { domain: `other-${employer.domain}` });
    expect(res.statusCode, res.body).toBe(200);
    expect((await v1(leaversKey.key)).statusCode).toBe(401);
    expect((await v1(deputysKey.key)).statusCode).toBe(200);
    expect((await asSecond.get("/api/employer/api-keys")).json().map((k: { id: number }) => k.id)).toEqual([
      deputysKey.id,
    ]);
    await t.app.deps.background.idle();
    const mail = await t.mail.waitFor(second.email, (m) => m.subject === API_KEY_TEXT.revokedMailSubject, before);
    expect(mail.text).toContain("Leaver's key");
    expect(mail.text).toContain(creator.email);
    const [audit] = await auditRows(t, AUDIT_ACTIONS.revokeApiKey);
    expect(audit).toMatchObject({ outcome: "success", target: String(leaversKey.id) });
    expect(audit?.detail).toMatchObject({ reason: "creator deactivated" });

    // Erasing a superuser is deactivating them: their keys are revoked too.
    const third = await createUser(t, {
      role: "superuser",
      organisationId: employer.org.id,
      email: `third@${employer.domain}`,
    });
    const thirdsKey = (
      await create(await signedIn(t, third), { name: "Third's key", scopes: ["activity:read"] })
    ).json();
    expect((await v1(thirdsKey.key)).statusCode).toBe(200);
    expect((await admin.post(`/api/admin/accounts/${third.id}/erase`)).statusCode).toBe(200);
    expect((await v1(thirdsKey.key)).statusCode).toBe(401);
    expect((await auditRows(t, AUDIT_ACTIONS.revokeApiKey))[0]).toMatchObject({ target: String(thirdsKey.id) });

    // The admin deactivates the employer: the whole organisation goes, and so do its keys.
    const gone = await admin.post(`/api/admin/deactivate-employer/${employer.user.id}`);
    expect(gone.statusCode, gone.body).toBe(200);
    expect((await v1(deputysKey.key)).statusCode).toBe(401);
  });
});
