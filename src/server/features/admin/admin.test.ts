import { sessions, users } from "@server/db/schema";
import { ADMIN_MESSAGES } from "@shared/admin";
import { auditRows, createEmployee, createEmployer, signInAdmin } from "@test/fixtures";
import { Browser, buildTestApp, createUser, signedIn, signIn, type TestApp, uniqueEmail } from "@test/helpers";
import { eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

describe("admin API", () => {
  let t: TestApp;
  let admin: Browser;
  let adminId: number;
  beforeAll(async () => {
    t = await buildTestApp();
    const signedIn = await signInAdmin(t);
    admin = signedIn.browser;
    adminId = signedIn.admin.id;
  });
  afterAll(() => t.close());

  it("stats sum every user's generated and verified codes", async () => {
    const before = (await admin.get("/api/admin/stats")).json();
    const a = await createUser(t);
    const b = await createUser(t);
    await t.database.db.update(users).set({ codesGenerated: 7, codesVerified: 3 }).where(eq(users.id, a.id));
    await t.database.db.update(users).set({ codesGenerated: 5, codesVerified: 2 }).where(eq(users.id, b.id));
    const res = await admin.get("/api/admin/stats");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ totalGenerated: before.totalGenerated + 12, totalVerified: before.totalVerified + 5 });
  });

  it("every admin route: signed out 401, client and employer 403", async () => {
    const routes: Array<["GET" | "POST", string, unknown?]> = [
      ["GET", "/api/admin/stats"],
      ["GET", "/api/admin/pending-accounts"],
      ["GET", "/api/admin/active-employers"],
      ["GET", "/api/admin/active-employers?q=a&page=1"],
      ["POST", "/api/admin/generate-employer-access-code", { email: "a@corp.example" }],
      ["POST", "/api/admin/activate-account/1"],
      ["POST", "/api/admin/deactivate-employer/1"],
      ["POST", "/api/admin/deactivate-by-domain", { domain: "corp.example" }],
      ["GET", "/api/admin/deactivated-organisations"],
      ["POST", "/api/admin/organisations/1/reactivate"],
      ["GET", "/api/admin/audit"],
      ["GET", "/api/admin/audit.csv"],
    ];
    const client = await signedIn(t, await createUser(t, { role: "client" }));
    const employer = await signedIn(t, (await createEmployer(t)).user);
    for (const [method, url, body] of routes) {
      expect((await new Browser(t.app).request(method, url, body)).statusCode, `${method} ${url}`).toBe(401);
      expect((await client.request(method, url, body)).statusCode, `${method} ${url}`).toBe(403);
      expect((await employer.request(method, url, body)).statusCode, `${method} ${url}`).toBe(403);
    }
    // role failures on actions are audited as denied
    const [denied] = await auditRows(t, "admin.deactivate-by-domain");
    expect(denied).toMatchObject({ outcome: "denied" });
  });

  describe("active employers: list, search and paging", () => {
    const marker = `zq${Date.now().toString(36)}`;
    beforeAll(async () => {
      for (let i = 0; i < 23; i++) {
        await createEmployer(t, {
          fullName: `${marker} Person ${String(i).padStart(2, "0")}`,
          companyName: `Co ${i}`,
          website: i === 5 ? `https://www.${marker}-five.example` : undefined,
        });
      }
      await createEmployer(t, { fullName: `${marker} 100% sure_thing` });
      await createEmployer(t, { fullName: `${marker} Pending`, status: "pending" });
      await createEmployer(t, { fullName: `${marker} Gone`, status: "deactivated" });
    });

    it("answers the plain array of active employers without paging parameters", async () => {
      const res = await admin.get("/api/admin/active-employers");
      expect(res.statusCode).toBe(200);
      const list = res.json() as Array<Record<string, unknown>>;
      expect(Array.isArray(list)).toBe(true);
      const mine = list.filter((e) => String(e.fullName).startsWith(marker));
      expect(mine).toHaveLength(24);
      expect(Object.keys(mine[0] ?? {}).sort()).toEqual([
        "companyName",
        "email",
        "emailVerified",
        "fullName",
        "id",
        "organisationId",
        "website",
        "websiteVerified",
      ]);
    });

    it("pages by 10 and searches full name, e-mail or website case-insensitively", async () => {
      const page1 = (await admin.get(`/api/admin/active-employers?q=${marker.toUpperCase()}&page=1`)).json();
      expect(page1).toMatchObject({ total: 24, page: 1, pageSize: 10, pages: 3 });
      expect(page1.items).toHaveLength(10);
      const page3 = (await admin.get(`/api/admin/active-employers?q=${marker}&page=3`)).json();
      expect(page3.items).toHaveLength(4);
      const ids = [...page1.items, ...page3.items].map((e: { id: number }) => e.id);
      expect(new Set(ids).size).toBe(14);
      expect((await admin.get(`/api/admin/active-employers?q=${marker}&page=9`)).json()).toMatchObject({
        items: [],
        total: 24,
        pages: 3,
      });

      const byWebsite = (await admin.get(`/api/admin/active-employers?q=${marker}-FIVE`)).json();
      expect(byWebsite.items.map((e: { fullName: string }) => e.fullName)).toEqual([`${marker} Person 05`]);
      const someone = page1.items[3] as { email: string; id: number };
      const byEmail = (
        await admin.get(`/api/admin/active-employers?q=${encodeURIComponent(someone.email.toUpperCase())}`)
      ).json();
      expect(byEmail.items.map((e: { id: number }) => e.id)).toEqual([someone.id]);
      expect((await admin.get("/api/admin/active-employers?page=1")).json().pageSize).toBe(10);
    });

    it("takes LIKE wildcards literally", async () => {
      const percent = (await admin.get(`/api/admin/active-employers?q=${encodeURIComponent(`${marker} 100%`)}`)).json();
      expect(percent.total).toBe(1);
      expect(
        (await admin.get(`/api/admin/active-employers?q=${encodeURIComponent(`${marker}%Person`)}`)).json().total,
      ).toBe(0);
      expect(
        (await admin.get(`/api/admin/active-employers?q=${encodeURIComponent(`${marker} 100_`)}`)).json().total,
      ).toBe(0);
      expect((await admin.get(`/api/admin/active-employers?q=${encodeURIComponent("sure_thing")}`)).json().total).toBe(
        1,
      );
    });

    it("refuses bad paging parameters with 400", async () => {
      for (const q of ["page=0", "page=-1", "page=abc", "page=1.5", "page=99999999", `q=${"x".repeat(201)}`]) {
        const res = await admin.get(`/api/admin/active-employers?${q}`);
        expect(res.statusCode, q).toBe(400);
        expect(res.json().message).toBeTruthy();
      }
    });
  });

  it("deactivating an employer ends its sessions at once and is audited", async () => {
    const { user, org } = await createEmployer(t);
    const employer = await signedIn(t, user);
    expect((await employer.get("/api/auth/whoami")).statusCode).toBe(200);
    const res = await admin.post(`/api/admin/deactivate-employer/${user.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().message).toBe(ADMIN_MESSAGES.employerDeactivated);
    expect((await employer.get("/api/auth/whoami")).statusCode).toBe(401);
    const [row] = await t.database.db.select().from(users).where(eq(users.id, user.id));
    expect(row?.status).toBe("deactivated");
    expect(row?.deactivatedAt).toEqual(t.clock.now());
    expect(await t.database.db.select().from(sessions).where(eq(sessions.userId, user.id))).toHaveLength(0);
    expect(
      (await new Browser(t.app).post("/api/auth/login", { email: user.email, password: user.password })).statusCode,
    ).toBe(403);
    expect((await admin.get("/api/admin/active-employers")).json()).not.toContainEqual(
      expect.objectContaining({ id: user.id }),
    );
    expect((await auditRows(t, "admin.deactivate-employer"))[0]).toMatchObject({
      outcome: "success",
      target: String(user.id),
      organisationId: org.id,
      actorId: adminId,
    });
    // again: the organisation stays deactivated, nothing is left to deactivate (not a 404: issue 32 H2)
    expect((await admin.post(`/api/admin/deactivate-employer/${user.id}`)).json()).toEqual({
      message: ADMIN_MESSAGES.employerDeactivated,
      count: 0,
    });
  });

  it("deactivate-employer: 404 for unknown ids, employees and admins; 400 for malformed ids", async () => {
    const { org, domain } = await createEmployer(t);
    const employee = await createEmployee(t, org.id, domain);
    for (const id of [2_000_000_000, employee.id, adminId]) {
      expect((await admin.post(`/api/admin/deactivate-employer/${id}`)).statusCode, String(id)).toBe(404);
    }
    for (const id of ["x", "0", "-5", "3.2", "12345678901", "%20"]) {
      expect((await admin.post(`/api/admin/deactivate-employer/${id}`)).statusCode, id).toBe(400);
    }
    const [row] = await t.database.db.select().from(users).where(eq(users.id, employee.id));
    expect(row?.status).toBe("active");
  });

  it("deactivates every employer and employee at a domain or under it, never an admin or another organisation's, and ends their sessions", async () => {
    const { user: boss, org, domain } = await createEmployer(t);
    const staff = [await createEmployee(t, org.id, domain), await createEmployee(t, org.id, domain)];
    const domainAdmin = await createUser(t, { email: uniqueEmail(domain, "admin"), role: "admin" });
    const sub = await createUser(t, { email: uniqueEmail(`sub.${domain}`), role: "client" });
    const lookalike = await createUser(t, { email: uniqueEmail(`x${domain}`), role: "client" });
    // an organisation of its own under the domain: its accounts belong to it (the longest matching domain)
    const below = await createEmployer(t, { domain: `below.${domain}` });
    const staffBrowser = await signIn(t, staff[0]?.email as string);
    const domainAdminBrowser = await signedIn(t, domainAdmin);

    const res = await admin.post("/api/admin/deactivate-by-domain", { domain: `  ${domain.toUpperCase()} ` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ count: 4, message: ADMIN_MESSAGES.domainDeactivated(4, domain) });

    const rows = await t.database.db
      .select({ id: users.id, status: users.status })
      .from(users)
      .where(
        inArray(users.id, [boss.id, ...staff.map((s) => s.id), domainAdmin.id, sub.id, lookalike.id, below.user.id]),
      );
    const status = Object.fromEntries(rows.map((r) => [r.id, r.status]));
    expect(status).toEqual({
      [boss.id]: "deactivated",
      [staff[0]?.id as number]: "deactivated",
      [staff[1]?.id as number]: "deactivated",
      [domainAdmin.id]: "active",
      [sub.id]: "deactivated",
      [lookalike.id]: "active",
      [below.user.id]: "active",
    });
    expect((await staffBrowser.get("/api/auth/whoami")).statusCode).toBe(401);
    expect((await domainAdminBrowser.get("/api/auth/whoami")).json()).toEqual({ role: "admin" });
    expect((await admin.get("/api/auth/whoami")).json()).toEqual({ role: "admin" });

    // nobody left: count 0
    expect((await admin.post("/api/admin/deactivate-by-domain", { domain })).json().count).toBe(0);
    const [audit] = await auditRows(t, "admin.deactivate-by-domain");
    expect(audit).toMatchObject({ outcome: "success", target: domain });
    const [first] = (await auditRows(t, "admin.deactivate-by-domain")).filter(
      (r) => (r.detail as { count?: number })?.count === 4,
    );
    expect(first).toMatchObject({ organisationId: org.id });
  });

  it("the admin's own domain: only non-admin accounts go", async () => {
    const mine = (await t.database.db.select().from(users).where(eq(users.id, adminId)))[0]?.email as string;
    const domain = mine.split("@")[1] as string;
    const colleague = await createUser(t, { email: uniqueEmail(domain), role: "client" });
    const res = await admin.post("/api/admin/deactivate-by-domain", { domain });
    expect(res.json().count).toBe(1);
    expect((await admin.get("/api/auth/whoami")).statusCode).toBe(200);
    const [row] = await t.database.db.select().from(users).where(eq(users.id, colleague.id));
    expect(row?.status).toBe("deactivated");
  });

  it("deactivate-by-domain validates the domain", async () => {
    for (const body of [
      { domain: "" },
      { domain: "   " },
      {},
      { domain: "not a domain" },
      { domain: "nodot" },
      { domain: "a@b@c" },
      { domain: 7 },
      { domain: ["x.com"] },
    ]) {
      const res = await admin.post("/api/admin/deactivate-by-domain", body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().message).toBeTruthy();
    }
    expect((await admin.post("/api/admin/deactivate-by-domain", { domain: "" })).json().message).toBe(
      ADMIN_MESSAGES.domainRequired,
    );
    expect((await admin.post("/api/admin/deactivate-by-domain", { domain: "no spaces.com" })).json().message).toBe(
      ADMIN_MESSAGES.invalidDomain,
    );
  });
});
