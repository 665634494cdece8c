import { auditLog } from "@server/db/schema";
import { csvCell } from "@server/lib/csv";
import { createEmployee, createEmployer, insertAuditEntry, signInAdmin } from "@test/fixtures";
import { Browser, buildTestApp, createUser, signIn, type TestApp } from "@test/helpers";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toCsv } from "./service";

describe("audit log API", () => {
  let t: TestApp;
  let admin: Browser;
  let orgA: Awaited<ReturnType<typeof createEmployer>>;
  let orgB: Awaited<ReturnType<typeof createEmployer>>;
  const start = new Date("2030-01-10T12:00:00Z");

  beforeAll(async () => {
    t = await buildTestApp();
    t.clock.set(start);
    orgA = await createEmployer(t);
    orgB = await createEmployer(t);
    // 60 events in org A a minute apart, 3 in org B, one with hostile text
    for (let i = 0; i < 60; i++) {
      t.clock.set(start.getTime() + (i + 1) * 60_000);
      await insertAuditEntry(t, {
        action: "test.bulk",
        outcome: "success",
        organisationId: orgA.org.id,
        actorEmail: "bulk@a.example",
        target: String(i),
      });
    }
    for (let i = 0; i < 3; i++) {
      await insertAuditEntry(t, {
        action: "test.other",
        outcome: "failure",
        organisationId: orgB.org.id,
        actorEmail: "b@b.example",
      });
    }
    await insertAuditEntry(t, {
      action: "test.hostile",
      outcome: "success",
      actorEmail: '=HYPERLINK("http://evil")',
      target: '+1 say "hi", then -2',
      detail: { note: "@SUM(A1)" },
    });
    t.clock.set(start.getTime() + 2 * 3_600_000);
    admin = (await signInAdmin(t)).browser;
  });
  afterAll(() => t.close());

  it("pages the whole log newest first, 50 at a time", async () => {
    const res = await admin.get("/api/admin/audit");
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.page).toBe(1);
    expect(body.pageSize).toBe(50);
    expect(body.items).toHaveLength(50);
    expect(body.pages).toBe(Math.ceil(body.total / 50));
    const ats = body.items.map((e: { at: string }) => Date.parse(e.at));
    expect([...ats].sort((a, b) => b - a)).toEqual(ats);
    expect(Object.keys(body.items[0]).sort()).toEqual(
      ["action", "actorEmail", "at", "detail", "id", "ip", "organisationId", "outcome", "target"].sort(),
    );
  });

  it("filters by actor, action (exact or dotted prefix), organisation and time", async () => {
    const bulk = (await admin.get("/api/admin/audit?actor=BULK@a.example")).json();
    expect(bulk.total).toBe(60);
    expect(bulk.items[0].target).toBe("59");
    expect((await admin.get("/api/admin/audit?actor=bulk@a.example&page=2")).json().items).toHaveLength(10);
    expect((await admin.get("/api/admin/audit?action=test.other")).json().total).toBe(3);
    expect((await admin.get("/api/admin/audit?action=test")).json().total).toBe(64);
    expect((await admin.get("/api/admin/audit?action=tes")).json().total).toBe(0);
    expect((await admin.get(`/api/admin/audit?organisationId=${orgB.org.id}`)).json().total).toBe(3);
    const from = new Date(start.getTime() + 10 * 60_000).toISOString();
    const to = new Date(start.getTime() + 19 * 60_000).toISOString();
    const window = (await admin.get(`/api/admin/audit?action=test.bulk&from=${from}&to=${to}`)).json();
    expect(window.total).toBe(10);
    expect((await admin.get("/api/admin/audit?action=test.bulk&from=2030-01-10&to=2030-01-10")).json().total).toBe(60);
    expect((await admin.get("/api/admin/audit?action=test.bulk&to=2030-01-09")).json().total).toBe(0);
  });

  it("refuses malformed filters with 400", async () => {
    for (const q of [
      "page=0",
      "page=x",
      "from=yesterday",
      "to=2030-13-45",
      "organisationId=-1",
      "organisationId=abc",
    ]) {
      const res = await admin.get(`/api/admin/audit?${q}`);
      expect(res.statusCode, q).toBe(400);
    }
  });

  it("exports CSV with a header, quotes escaped and formula cells neutralised", async () => {
    const res = await admin.get("/api/admin/audit.csv?action=test.hostile");
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/csv/);
    expect(res.headers["content-disposition"]).toMatch(/^attachment; filename="callproof-audit-.*\.csv"$/);
    const lines = res.body.trimEnd().split("\r\n");
    expect(lines[0]).toBe("id,at,actorEmail,action,target,organisationId,ip,outcome,detail");
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(`"'=HYPERLINK(""http://evil"")"`);
    expect(lines[1]).toContain(`"'+1 say ""hi"", then -2"`);
    expect(lines[1]).toContain(`"{""note"":""@SUM(A1)""}"`);
    const all = await admin.get("/api/admin/audit.csv?actor=bulk@a.example");
    expect(all.body.trimEnd().split("\r\n")).toHaveLength(61);
  });

  it("csv cells: plain values pass, formulas are prefixed", () => {
    expect(csvCell(null)).toBe("");
    expect(csvCell(12)).toBe('"12"');
    expect(csvCell("-cmd")).toBe(`"'-cmd"`);
    expect(csvCell("@x")).toBe(`"'@x"`);
    expect(csvCell("\tx")).toBe(`"'\tx"`);
    expect(csvCell("a,b\nc")).toBe('"a,b\nc"');
    expect(toCsv([])).toBe("id,at,actorEmail,action,target,organisationId,ip,outcome,detail\r\n");
  });

  it("an employer sees only its own organisation's events", async () => {
    const employer = await signIn(t, orgB.user.email);
    const res = await employer.get("/api/employer/audit");
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.items.length).toBeGreaterThan(0);
    expect(body.items.every((e: { organisationId: number }) => e.organisationId === orgB.org.id)).toBe(true);
    expect(body.items.filter((e: { action: string }) => e.action === "test.other")).toHaveLength(3);
    expect((await employer.get("/api/employer/audit?page=abc")).statusCode).toBe(400);
    // an employer's own actions land in its log
    const staff = await createEmployee(t, orgB.org.id, orgB.domain);
    await employer.post(`/api/employer/deactivate-employee/${staff.id}`);
    const after = (await employer.get("/api/employer/audit")).json();
    expect(after.items[0]).toMatchObject({
      action: "employer.deactivate-employee",
      target: String(staff.id),
      outcome: "success",
    });
  });

  it("is admin-only (employer audit superuser-only)", async () => {
    const client = await signIn(t, (await createUser(t, { role: "client" })).email);
    expect((await client.get("/api/admin/audit")).statusCode).toBe(403);
    expect((await client.get("/api/employer/audit")).statusCode).toBe(403);
    expect((await new Browser(t.app).get("/api/admin/audit.csv")).statusCode).toBe(401);
    expect((await admin.get("/api/employer/audit")).statusCode).toBe(403);
  });

  it("the log is append-only in the database itself", async () => {
    const [row] = await t.database.db.select({ id: auditLog.id }).from(auditLog).limit(1);
    await expect(
      t.database.db
        .update(auditLog)
        .set({ outcome: "x" })
        .where(eq(auditLog.id, row?.id as number)),
    ).rejects.toThrow();
    await expect(t.database.db.execute(sql`delete from audit_log`)).rejects.toThrow();
  });
});
