import { employeeAccessCodes, users } from "@server/db/schema";
import { EMPLOYER_MESSAGES } from "@shared/employer";
import { auditRows, createEmployee, createEmployer, signInAdmin } from "@test/fixtures";
import { Browser, buildTestApp, createUser, signedIn, type TestApp } from "@test/helpers";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

describe("employer dashboard API", () => {
  let t: TestApp;
  let boss: Awaited<ReturnType<typeof createEmployer>>;
  let employer: Browser;
  beforeAll(async () => {
    t = await buildTestApp();
    boss = await createEmployer(t, { companyName: "Widget Works", website: "https://www.widget-works.example" });
    employer = await signedIn(t, boss.user);
  });
  afterAll(() => t.close());

  it("me: the employer's company, e-mail and website", async () => {
    const res = await employer.get("/api/employer/me");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      companyName: "Widget Works",
      email: boss.user.email,
      website: "https://www.widget-works.example",
    });
  });

  it("access-codes: null before the first code, then the newest code shown again", async () => {
    const other = await createEmployer(t);
    const b = await signedIn(t, other.user);
    const none = await b.get("/api/employer/access-codes");
    expect(none.statusCode).toBe(200);
    expect(none.json()).toBeNull();
    const made = (await b.post("/api/employer/generate-access-code", { maxUsers: 12 })).json();
    expect(made).toMatchObject({ maxUsers: 12, usedCount: 0 });
    expect((await b.get("/api/employer/access-codes")).json()).toEqual(made);
    // stored as a hash plus a sealed copy, never in clear
    const rows = await t.database.db
      .select()
      .from(employeeAccessCodes)
      .where(eq(employeeAccessCodes.organisationId, other.org.id));
    expect(JSON.stringify(rows)).not.toContain(made.code);
    expect(JSON.stringify(await auditRows(t, "employer.generate-access-code"))).not.toContain(made.code);
    // another organisation does not see it
    expect((await employer.get("/api/employer/access-codes")).json()).toBeNull();
  });

  describe("employees", () => {
    let staff: Array<{ id: number; email: string }>;
    beforeAll(async () => {
      staff = [];
      for (let i = 0; i < 12; i++)
        staff.push(await createEmployee(t, boss.org.id, boss.domain, { fullName: `Staff ${i}` }));
      await t.database.db
        .update(users)
        .set({ codesGenerated: 4, codesVerified: 1 })
        .where(eq(users.id, staff[0]?.id as number));
      // not listed: another organisation's employee, a deactivated one
      const other = await createEmployer(t);
      await createEmployee(t, other.org.id, other.domain);
      await createUser(t, { role: "client", organisationId: boss.org.id, status: "deactivated" });
    });

    it("lists the organisation's active employees with their counters", async () => {
      const res = await employer.get("/api/employer/employees");
      expect(res.statusCode).toBe(200);
      const list = res.json() as Array<{ id: number }>;
      expect(list.map((e) => e.id)).toEqual(staff.map((s) => s.id));
      expect(list[0]).toEqual({
        id: staff[0]?.id,
        fullName: "Staff 0",
        email: staff[0]?.email,
        codesGenerated: 4,
        codesVerified: 1,
      });
    });

    it("pages by 10 and searches by e-mail", async () => {
      const page1 = (await employer.get("/api/employer/employees?page=1")).json();
      expect(page1).toMatchObject({ total: 12, page: 1, pageSize: 10, pages: 2 });
      expect(page1.items).toHaveLength(10);
      expect((await employer.get("/api/employer/employees?page=2")).json().items).toHaveLength(2);
      const target = staff[7] as { email: string; id: number };
      const found = (
        await employer.get(`/api/employer/employees?q=${encodeURIComponent(target.email.toUpperCase())}`)
      ).json();
      expect(found.items.map((e: { id: number }) => e.id)).toEqual([target.id]);
      expect((await employer.get("/api/employer/employees?q=%25")).json().total).toBe(0);
      expect((await employer.get("/api/employer/employees?page=0")).statusCode).toBe(400);
    });

    it("an admin has no organisation: [] unless it names one", async () => {
      const { browser: admin } = await signInAdmin(t);
      expect((await admin.get("/api/employer/employees")).json()).toEqual([]);
      expect((await admin.get("/api/employer/employees?page=1")).json()).toMatchObject({
        items: [],
        total: 0,
        pages: 1,
      });
      expect((await admin.get(`/api/employer/employees?organisationId=${boss.org.id}`)).json()).toHaveLength(12);
      expect((await admin.get("/api/employer/employees?organisationId=abc")).statusCode).toBe(400);
      expect((await admin.get("/api/employer/me")).json()).toMatchObject({ companyName: "CallProof" });
      expect((await admin.get("/api/employer/access-codes")).json()).toBeNull();
      // an admin may look but not act
      expect((await admin.post("/api/employer/generate-access-code", { maxUsers: 2 })).statusCode).toBe(403);
      expect((await admin.post(`/api/employer/deactivate-employee/${staff[0]?.id}`)).statusCode).toBe(403);
    });
  });

  it("deactivates its own employee: sessions end at once, the list drops them, audited", async () => {
    const employee = await createEmployee(t, boss.org.id, boss.domain);
    const their = await signedIn(t, employee);
    expect((await their.get("/api/auth/whoami")).statusCode).toBe(200);
    const res = await employer.post(`/api/employer/deactivate-employee/${employee.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().message).toBe(EMPLOYER_MESSAGES.employeeDeactivated);
    expect((await their.get("/api/auth/whoami")).statusCode).toBe(401);
    expect((await employer.get("/api/employer/employees")).json()).not.toContainEqual(
      expect.objectContaining({ id: employee.id }),
    );
    expect((await auditRows(t, "employer.deactivate-employee"))[0]).toMatchObject({
      outcome: "success",
      actorId: boss.user.id,
      organisationId: boss.org.id,
      target: String(employee.id),
    });
    expect((await employer.post(`/api/employer/deactivate-employee/${employee.id}`)).statusCode).toBe(404);
  });

  it("anyone not its own active employee is 404: other organisation, itself, an admin, unknown", async () => {
    const other = await createEmployer(t);
    const foreign = await createEmployee(t, other.org.id, other.domain);
    const admin = await createUser(t, { role: "admin" });
    const colleague = await createUser(t, { role: "superuser", organisationId: boss.org.id });
    for (const id of [foreign.id, boss.user.id, admin.id, colleague.id, other.user.id, 2_000_000_000]) {
      const res = await employer.post(`/api/employer/deactivate-employee/${id}`);
      expect(res.statusCode, String(id)).toBe(404);
      expect(res.json().message).toBe(EMPLOYER_MESSAGES.employeeNotFound);
    }
    const [row] = await t.database.db.select().from(users).where(eq(users.id, foreign.id));
    expect(row?.status).toBe("active");
    expect((await auditRows(t, "employer.deactivate-employee"))[0]).toMatchObject({
      outcome: "failure",
      actorId: boss.user.id,
    });
    for (const id of ["abc", "0", "1.5", "-2", "99999999999"]) {
      expect((await employer.post(`/api/employer/deactivate-employee/${id}`)).statusCode, id).toBe(400);
    }
  });

  it("roles: signed out 401, client 403 everywhere", async () => {
    const client = await signedIn(t, await createEmployee(t, boss.org.id, boss.domain));
    const routes: Array<["GET" | "POST", string, unknown?]> = [
      ["GET", "/api/employer/me"],
      ["GET", "/api/employer/employees"],
      ["GET", "/api/employer/access-codes"],
      ["POST", "/api/employer/generate-access-code", { maxUsers: 1 }],
      ["POST", "/api/employer/deactivate-employee/1"],
      ["GET", "/api/employer/audit"],
    ];
    for (const [method, url, body] of routes) {
      expect((await new Browser(t.app).request(method, url, body)).statusCode, `${method} ${url}`).toBe(401);
      expect((await client.request(method, url, body)).statusCode, `${method} ${url}`).toBe(403);
    }
    // even with a malformed body the role check comes first
    expect((await client.post("/api/employer/generate-access-code", { maxUsers: "lots" })).statusCode).toBe(403);
  });
});
