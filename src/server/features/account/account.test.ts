import { auditLog, organisations, sessions } from "@server/db/schema";
import { ACCOUNT_TEXT } from "@shared/account";
import { MESSAGES } from "@shared/messages";
import { Browser, buildTestApp, createUser, GOOD_PASSWORD, signIn, type TestApp } from "@test/helpers";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
});

let ipSeq = 0;
const freshIp = () => `10.1.${Math.floor(++ipSeq / 250)}.${ipSeq % 250}`;

const NEW_PASSWORD = "Brand-New-Pass-77";
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";

async function signInWithAgent(email: string, userAgent: string, password = GOOD_PASSWORD) {
  const ip = freshIp();
  const browser = new Browser(t.app, ip);
  const before = t.mail.to(email).length;
  await browser.post("/api/auth/login", { email, password }, { "user-agent": userAgent });
  const code = await t.mail.signInCode(email, before);
  const res = await browser.post("/api/auth/verify-2fa", { email, code }, { "user-agent": userAgent });
  expect(res.statusCode).toBe(200);
  return { browser, ip };
}

describe("GET /api/account", () => {
  it("is 401 signed out", async () => {
    const res = await new Browser(t.app).get("/api/account");
    expect(res.statusCode).toBe(401);
    expect(res.json().message).toBe(MESSAGES.notSignedIn);
  });

  it("answers the profile, no passkeys yet, and the live sessions with this one marked", async () => {
    const [org] = await t.database.db
      .insert(organisations)
      .values({
        companyName: "Acme Bank",
        domain: "acme-bank.example",
        website: "https://acme-bank.example",
        websiteHost: "acme-bank.example",
        createdAt: t.clock.now(),
      })
      .returning();
    const u = await createUser(t, { role: "superuser", fullName: "Ada Admin", organisationId: org?.id ?? null });
    const phone = await signInWithAgent(u.email, "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Safari/604.1");
    const desk = await signInWithAgent(u.email, `${FIREFOX}\u0007\u202e`);

    const res = await desk.browser.get("/api/account");
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      email: u.email,
      fullName: "Ada Admin",
      role: "superuser",
      organisation: "Acme Bank",
      passkeys: [],
    });
    expect(body.sessions).toHaveLength(2);
    const current = body.sessions.find((s: { current: boolean }) => s.current);
    // control and bidi characters of a hostile User-Agent are dropped before storing
    expect(current).toMatchObject({ userAgent: FIREFOX, ip: desk.ip });
    expect(Date.parse(current.createdAt)).toBe(t.clock.now().getTime());
    expect(Date.parse(current.lastSeenAt)).toBe(t.clock.now().getTime());
    const other = body.sessions.find((s: { current: boolean }) => !s.current);
    expect(other.ip).toBe(phone.ip);
    expect(other.userAgent).toContain("iPhone");
    // the token hash is never part of the answer
    const rows = await t.database.db.select().from(sessions).where(eq(sessions.userId, u.id));
    for (const row of rows) expect(res.body).not.toContain(row.tokenHash);
  });
});

describe("POST /api/account/change-password", () => {
  it("refuses a wrong current password and changes nothing", async () => {
    const u = await createUser(t);
    const a = await signIn(t, u.email, GOOD_PASSWORD, freshIp());
    const b = await signIn(t, u.email, GOOD_PASSWORD, freshIp());
    const res = await a.post("/api/account/change-password", {
      currentPassword: "Wrong-Password-1",
      newPassword: NEW_PASSWORD,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(ACCOUNT_TEXT.wrongCurrentPassword);
    expect((await b.get("/api/auth/whoami")).statusCode).toBe(200);
    await signIn(t, u.email, GOOD_PASSWORD, freshIp());
    expect(t.mail.to(u.email).some((m) => /password was changed/i.test(m.subject))).toBe(false);
  });

  it("changes it, ends every other session, keeps this one and e-mails the user", async () => {
    const u = await createUser(t);
    const here = await signIn(t, u.email, GOOD_PASSWORD, freshIp());
    const other1 = await signIn(t, u.email, GOOD_PASSWORD, freshIp());
    const other2 = await signIn(t, u.email, GOOD_PASSWORD, freshIp());
    const res = await here.post("/api/account/change-password", {
      currentPassword: GOOD_PASSWORD,
      newPassword: NEW_PASSWORD,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: ACCOUNT_TEXT.passwordChanged });
    expect((await other1.get("/api/auth/whoami")).statusCode).toBe(401);
    expect((await other2.get("/api/auth/whoami")).statusCode).toBe(401);
    expect((await here.get("/api/auth/whoami")).statusCode).toBe(200);

    const mail = await t.mail.waitFor(u.email, (m) => m.subject === "Your CallProof password was changed");
    expect(mail.text).toContain("Every other session was signed out");
    expect(mail.text).not.toContain(NEW_PASSWORD);

    const old = await new Browser(t.app, freshIp()).post("/api/auth/login", {
      email: u.email,
      password: GOOD_PASSWORD,
    });
    expect(old.statusCode).toBe(401);
    await signIn(t, u.email, NEW_PASSWORD, freshIp());

    const [entry] = await t.database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, "account.change-password"))
      .orderBy(auditLog.id);
    expect(entry).toBeDefined();
    expect(JSON.stringify(entry)).not.toContain(NEW_PASSWORD);
  });

  it("applies the sign-up rules and the common-password check to the new password", async () => {
    const u = await createUser(t);
    const b = await signIn(t, u.email, GOOD_PASSWORD, freshIp());
    const weak = await b.post("/api/account/change-password", { currentPassword: GOOD_PASSWORD, newPassword: "short" });
    expect(weak.statusCode).toBe(400);
    expect(weak.json().message).toBe(MESSAGES.employerPasswordRules);
    const common = await b.post("/api/account/change-password", {
      currentPassword: GOOD_PASSWORD,
      newPassword: "P@ssw0rd",
    });
    expect(common.statusCode).toBe(400);
    expect(common.json().message).toBe(MESSAGES.passwordTooCommon);
    const same = await b.post("/api/account/change-password", {
      currentPassword: GOOD_PASSWORD,
      newPassword: GOOD_PASSWORD,
    });
    expect(same.statusCode).toBe(400);
    expect(same.json().message).toBe(ACCOUNT_TEXT.samePassword);
    const missing = await b.post("/api/account/change-password", { newPassword: NEW_PASSWORD });
    expect(missing.statusCode).toBe(400);
    expect((await b.get("/api/auth/whoami")).statusCode).toBe(200);
  });

  it("allows 5 wrong current passwords per 15 minutes, then answers 429 even for the right one", async () => {
    const u = await createUser(t);
    const b = await signIn(t, u.email, GOOD_PASSWORD, freshIp());
    for (let i = 0; i < 5; i++) {
      const res = await b.post("/api/account/change-password", {
        currentPassword: `Wrong-Password-${i}`,
        newPassword: NEW_PASSWORD,
      });
      expect(res.statusCode).toBe(400);
    }
    const blocked = await b.post("/api/account/change-password", {
      currentPassword: GOOD_PASSWORD,
      newPassword: NEW_PASSWORD,
    });
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers["retry-after"])).toBeGreaterThan(0);
    t.clock.advance(15 * 60_000 + 1000);
    await b.get("/api/auth/whoami"); // keeps the session from going idle
    const ok = await b.post("/api/account/change-password", {
      currentPassword: GOOD_PASSWORD,
      newPassword: NEW_PASSWORD,
    });
    expect(ok.statusCode).toBe(200);
  });

  it("evaluates at most 5 of 40 parallel wrong guesses: each is counted before its password is checked", async () => {
    const u = await createUser(t);
    const b = await signIn(t, u.email, GOOD_PASSWORD, freshIp());
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        b.post("/api/account/change-password", { currentPassword: `Wrong-Password-${i}`, newPassword: NEW_PASSWORD }),
      ),
    );
    const codes = answers.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 400)).toHaveLength(5);
    expect(codes.filter((c) => c === 429)).toHaveLength(35);
  });

  it("needs a signed-in session and the CSRF header", async () => {
    const anon = await new Browser(t.app).post("/api/account/change-password", {
      currentPassword: GOOD_PASSWORD,
      newPassword: NEW_PASSWORD,
    });
    expect(anon.statusCode).toBe(401);
    const u = await createUser(t);
    const b = await signIn(t, u.email, GOOD_PASSWORD, freshIp());
    const forged = await b.post(
      "/api/account/change-password",
      { currentPassword: GOOD_PASSWORD, newPassword: NEW_PASSWORD },
      { "x-xsrf-token": "forged" },
    );
    expect(forged.statusCode).toBe(403);
  });
});

describe("POST /api/account/sessions/revoke-others", () => {
  it("ends every other session of the user, none of anyone else's, and answers how many", async () => {
    const u = await createUser(t);
    const someoneElse = await createUser(t);
    const here = await signIn(t, u.email, GOOD_PASSWORD, freshIp());
    const others = [
      await signIn(t, u.email, GOOD_PASSWORD, freshIp()),
      await signIn(t, u.email, GOOD_PASSWORD, freshIp()),
    ];
    const stranger = await signIn(t, someoneElse.email, GOOD_PASSWORD, freshIp());

    const res = await here.post("/api/account/sessions/revoke-others");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ count: 2 });
    for (const b of others) expect((await b.get("/api/auth/whoami")).statusCode).toBe(401);
    expect((await here.get("/api/auth/whoami")).statusCode).toBe(200);
    expect((await stranger.get("/api/auth/whoami")).statusCode).toBe(200);
    const account = (await here.get("/api/account")).json();
    expect(account.sessions).toHaveLength(1);
    expect(account.sessions[0].current).toBe(true);

    expect((await here.post("/api/account/sessions/revoke-others")).json()).toEqual({ count: 0 });
    expect((await new Browser(t.app).post("/api/account/sessions/revoke-others")).statusCode).toBe(401);
  });
});
