import { auditLog, sessions, users, verificationTokens } from "@server/db/schema";
import { ERROR_CODES } from "@shared/error-codes";
import { MESSAGES } from "@shared/messages";
import { Browser, buildTestApp, createUser, GOOD_PASSWORD, signIn, type TestApp, uniqueEmail } from "@test/helpers";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendVerificationEmail } from "./service";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
});

let ipSeq = 0;
/** A browser from its own address, so throttles of one test do not touch another. */
const freshBrowser = () => new Browser(t.app, `10.0.${Math.floor(++ipSeq / 250)}.${ipSeq % 250}`);

async function passwordStep(b: Browser, email: string, password = GOOD_PASSWORD) {
  return b.post("/api/auth/login", { email, password });
}

describe("sign-in, step 1 (password)", () => {
  it("e-mails a 6-digit code for the right password, and the code is the only 6-digit number", async () => {
    const u = await createUser(t);
    const b = freshBrowser();
    const res = await passwordStep(b, u.email.toUpperCase());
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: MESSAGES.signInCodeSent });
    const mail = await t.mail.waitFor(u.email);
    expect(mail.text.match(/\b\d{6}\b/g)).toHaveLength(1);
    expect(mail.html).toContain(/\b\d{6}\b/.exec(mail.text)?.[0]);
    expect(res.cookies.find((c) => c.name === "cp_session")).toBeUndefined();
  });

  it("gives the same answer for a wrong password and an unknown e-mail, and sends no mail", async () => {
    const u = await createUser(t);
    const wrong = await passwordStep(freshBrowser(), u.email, "Wrong-Password-1");
    const unknown = await passwordStep(freshBrowser(), uniqueEmail(), "Wrong-Password-1");
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json()).toEqual(unknown.json());
    expect(wrong.json()).toEqual({ message: MESSAGES.invalidCredentials, code: "auth.invalid_credentials" });
    expect(t.mail.to(u.email)).toHaveLength(0);
  });

  it("refuses unverified, pending and deactivated accounts only after the right password", async () => {
    const unverified = await createUser(t, { verified: false });
    const pending = await createUser(t, { role: "superuser", status: "pending" });
    const deactivated = await createUser(t, { status: "deactivated" });
    for (const [u, message] of [
      [unverified, MESSAGES.emailNotVerified],
      [pending, MESSAGES.accountPending],
      [deactivated, MESSAGES.accountDeactivated],
    ] as const) {
      const res = await passwordStep(freshBrowser(), u.email);
      expect(res.statusCode).toBe(403);
      expect(res.json().message).toBe(message);
      const wrong = await passwordStep(freshBrowser(), u.email, "Wrong-Password-1");
      expect(wrong.json().message).toBe(MESSAGES.invalidCredentials);
    }
  });
  it("sends an unverified account a new verification link after the right password, at most 3 in 15 minutes", async () => {
    const u = await createUser(t, { verified: false });
    for (let i = 0; i < 4; i++) {
      const res = await passwordStep(freshBrowser(), u.email);
      expect(res.statusCode).toBe(403);
      expect(res.json().message).toBe(MESSAGES.emailNotVerified);
    }
    const links = t.mail.to(u.email).filter((m) => m.text.includes("/verify-email?"));
    expect(links).toHaveLength(3);
    await passwordStep(freshBrowser(), u.email, "Wrong-Password-1");
    expect(t.mail.to(u.email)).toHaveLength(3);
    // the newest link works
    const link = await t.mail.link(u.email, "/verify-email?", 2);
    const ok = await freshBrowser().post("/api/auth/verify-email", {
      email: u.email,
      token: link.searchParams.get("token"),
    });
    expect(ok.statusCode).toBe(200);
    expect((await passwordStep(freshBrowser(), u.email)).statusCode).toBe(200);
  });
});

describe("sign-in, step 2 (code)", () => {
  it("starts a session with a fresh HttpOnly, SameSite=Lax cookie and answers the role", async () => {
    const u = await createUser(t, { role: "superuser" });
    const b = freshBrowser();
    await b.get("/api/auth/whoami");
    const anonXsrf = b.cookie("XSRF-TOKEN");
    await passwordStep(b, u.email);
    const code = await t.mail.signInCode(u.email);
    const res = await b.post("/api/auth/verify-2fa", { email: u.email, code });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ role: "superuser" });
    const cookie = res.cookies.find((c) => c.name === "cp_session");
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/" });
    expect(cookie?.secure).toBeFalsy();
    expect(cookie?.value.length).toBeGreaterThanOrEqual(22); // ≥ 128 bits in base64url
    // CSRF token re-issued at sign-in, bound to the new session
    expect(b.cookie("XSRF-TOKEN")).not.toBe(anonXsrf);
    expect((await b.get("/api/auth/whoami")).json()).toEqual({ role: "superuser" });
    // the token is stored only as a hash
    const rows = await t.database.db.select().from(sessions);
    expect(rows.some((r) => r.tokenHash === cookie?.value)).toBe(false);
  });

  it("refuses a wrong, reused or expired code", async () => {
    const u = await createUser(t);
    const b = freshBrowser();
    await passwordStep(b, u.email);
    const code = await t.mail.signInCode(u.email);
    const wrong = await b.post("/api/auth/verify-2fa", {
      email: u.email,
      code: code === "000000" ? "111111" : "000000",
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().message).toBe(MESSAGES.invalidSignInCode);
    expect((await b.post("/api/auth/verify-2fa", { email: u.email, code })).statusCode).toBe(200);
    const reused = await freshBrowser().post("/api/auth/verify-2fa", { email: u.email, code });
    expect(reused.statusCode).toBe(401);

    const b2 = freshBrowser();
    const before = t.mail.to(u.email).length;
    await passwordStep(b2, u.email);
    const code2 = await t.mail.signInCode(u.email, before);
    t.clock.advance(10 * 60_000 + 1000);
    const expired = await b2.post("/api/auth/verify-2fa", { email: u.email, code: code2 });
    t.clock.advance(-(10 * 60_000 + 1000));
    expect(expired.statusCode).toBe(401);
  });

  it("voids the code after 5 wrong tries, even for the right code after that", async () => {
    const u = await createUser(t);
    const b = freshBrowser();
    await passwordStep(b, u.email);
    const code = await t.mail.signInCode(u.email);
    const bad = code === "123456" ? "654321" : "123456";
    const answers = [];
    for (let i = 0; i < 5; i++)
      answers.push((await b.post("/api/auth/verify-2fa", { email: u.email, code: bad })).json().message);
    // one answer for every failure, the fifth included
    expect(answers).toEqual(Array(5).fill(MESSAGES.invalidSignInCode));
    const right = await b.post("/api/auth/verify-2fa", { email: u.email, code });
    expect(right.statusCode).toBe(401);
  });

  it("a new code voids the previous one", async () => {
    const u = await createUser(t);
    const b = freshBrowser();
    await passwordStep(b, u.email);
    const first = await t.mail.signInCode(u.email);
    await passwordStep(b, u.email);
    const second = await t.mail.signInCode(u.email, 1);
    if (first !== second) {
      expect((await b.post("/api/auth/verify-2fa", { email: u.email, code: first })).statusCode).toBe(401);
    }
    expect((await b.post("/api/auth/verify-2fa", { email: u.email, code: second })).statusCode).toBe(200);
  });

  it("stores codes only as HMACs and never writes them to the audit log", async () => {
    const u = await createUser(t);
    const b = freshBrowser();
    await passwordStep(b, u.email);
    const code = await t.mail.signInCode(u.email);
    const tokens = await t.database.db.select().from(verificationTokens);
    expect(JSON.stringify(tokens)).not.toContain(code);
    await b.post("/api/auth/verify-2fa", { email: u.email, code });
    const audit = await t.database.db.select().from(auditLog).where(eq(auditLog.actorId, u.id));
    expect(audit.map((a) => a.action)).toEqual(expect.arrayContaining(["auth.login", "auth.verify-2fa"]));
    expect(JSON.stringify(audit)).not.toContain(code);
    expect(JSON.stringify(audit)).not.toContain(GOOD_PASSWORD);
  });
});

describe("throttles", () => {
  it("answers 429 with Retry-After after 10 failures for one account, from any address, for 15 minutes", async () => {
    const u = await createUser(t);
    for (let i = 0; i < 10; i++) {
      expect((await passwordStep(freshBrowser(), u.email, `Wrong-${i}!A`)).statusCode).toBe(401);
    }
    const blocked = await passwordStep(freshBrowser(), u.email);
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers["retry-after"])).toBeGreaterThan(0);
    expect(Number(blocked.headers["retry-after"])).toBeLessThanOrEqual(15 * 60);
    expect(blocked.json().message).toBe(MESSAGES.tooManyAttempts);
    t.clock.advance(15 * 60_000 + 1000);
    expect((await passwordStep(freshBrowser(), u.email)).statusCode).toBe(200);
  });

  it("answers 429 after 30 failures from one address, whatever the account", async () => {
    const b = freshBrowser();
    for (let i = 0; i < 30; i++) expect((await passwordStep(b, uniqueEmail(), "Wrong-Pass-1")).statusCode).toBe(401);
    const u = await createUser(t);
    const blocked = await passwordStep(b, u.email);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.headers["retry-after"]).toBeDefined();
    // another address is not affected
    expect((await passwordStep(freshBrowser(), u.email)).statusCode).toBe(200);
  });

  it("groups IPv6 clients by /64", async () => {
    const u = await createUser(t);
    for (let i = 0; i < 30; i++) {
      const b = new Browser(t.app, `2001:db8:aa:bb::${(i + 1).toString(16)}`);
      await passwordStep(b, uniqueEmail(), "Wrong-Pass-1");
    }
    expect((await passwordStep(new Browser(t.app, "2001:db8:aa:bb:ffff::1"), u.email)).statusCode).toBe(429);
    expect((await passwordStep(new Browser(t.app, "2001:db8:aa:cc::1"), u.email)).statusCode).toBe(200);
  });
});

describe("CSRF and Origin", () => {
  it("sets a readable XSRF-TOKEN cookie on a first response", async () => {
    const res = await freshBrowser().get("/api/auth/whoami");
    expect(res.statusCode).toBe(401);
    const c = res.cookies.find((x) => x.name === "XSRF-TOKEN");
    expect(c?.httpOnly).toBeFalsy();
    expect(c?.value).toMatch(/^[\w-]+\.[\w-]+$/);
  });

  it("refuses a state-changing call without the header, with a mismatched or forged token, or from a foreign Origin", async () => {
    const u = await createUser(t);
    const b = await signIn(t, u.email, GOOD_PASSWORD, "10.9.9.9");
    const cookie = b.cookieHeader();
    const xsrf = b.cookie("XSRF-TOKEN") as string;
    const call = (headers: Record<string, string>) =>
      t.app.inject({
        method: "POST",
        url: "/api/auth/logout",
        remoteAddress: "10.9.9.9",
        headers: { cookie, ...headers },
      });
    const missing = await call({});
    expect(missing.statusCode).toBe(403);
    expect(missing.json().message).toBe(MESSAGES.csrfFailed);
    expect((await call({ "x-xsrf-token": `${xsrf}x` })).statusCode).toBe(403);
    const forged = "AAAAAAAAAAAAAAAAAAAAAA.BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB";
    const forgedCall = await t.app.inject({
      method: "POST",
      url: "/api/auth/logout",
      headers: { cookie: cookie.replace(xsrf, forged), "x-xsrf-token": forged },
    });
    expect(forgedCall.statusCode).toBe(403);
    const foreign = await call({ "x-xsrf-token": xsrf, origin: "https://evil.example" });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json().message).toBe(MESSAGES.foreignOrigin);
    // the session is still alive after all those refusals
    expect((await b.get("/api/auth/whoami")).statusCode).toBe(200);
    // a token issued before sign-in is not valid for the session
    const anon = freshBrowser();
    await anon.get("/api/auth/whoami");
    const anonToken = anon.cookie("XSRF-TOKEN") as string;
    const stale = await t.app.inject({
      method: "POST",
      url: "/api/auth/logout",
      headers: { cookie: cookie.replace(xsrf, anonToken), "x-xsrf-token": anonToken },
    });
    expect(stale.statusCode).toBe(403);
    expect((await call({ "x-xsrf-token": xsrf })).statusCode).toBe(200);
  });
});

describe("sessions", () => {
  it("logout ends the session at once", async () => {
    const u = await createUser(t);
    const b = await signIn(t, u.email, GOOD_PASSWORD, "10.8.0.1");
    const stolen = b.cookieHeader();
    expect((await b.post("/api/auth/logout")).statusCode).toBe(200);
    expect((await b.get("/api/auth/whoami")).statusCode).toBe(401);
    const replay = await t.app.inject({ method: "GET", url: "/api/auth/whoami", headers: { cookie: stolen } });
    expect(replay.statusCode).toBe(401);
    expect((await freshBrowser().post("/api/auth/logout")).statusCode).toBe(401);
  });

  it("ends after 30 minutes idle", async () => {
    const u = await createUser(t);
    const b = await signIn(t, u.email, GOOD_PASSWORD, "10.8.0.2");
    t.clock.advance(29 * 60_000);
    expect((await b.get("/api/auth/whoami")).statusCode).toBe(200);
    t.clock.advance(29 * 60_000);
    expect((await b.get("/api/auth/whoami")).statusCode).toBe(200);
    t.clock.advance(31 * 60_000);
    expect((await b.get("/api/auth/whoami")).statusCode).toBe(401);
  });

  it("ends after 12 hours however active", async () => {
    const u = await createUser(t);
    const b = await signIn(t, u.email, GOOD_PASSWORD, "10.8.0.3");
    for (let h = 0; h < 11 * 3 + 2; h++) {
      t.clock.advance(20 * 60_000);
      expect((await b.get("/api/auth/whoami")).statusCode).toBe(200);
    }
    t.clock.advance(20 * 60_000);
    expect((await b.get("/api/auth/whoami")).statusCode).toBe(401);
  });

  it("a deactivated user's session stops working at once", async () => {
    const u = await createUser(t);
    const b = await signIn(t, u.email, GOOD_PASSWORD, "10.8.0.4");
    await t.database.db.update(users).set({ status: "deactivated" }).where(eq(users.id, u.id));
    expect((await b.get("/api/auth/whoami")).statusCode).toBe(401);
  });
});

describe("password reset", () => {
  it("gives the same answer for unknown e-mails and sends them nothing", async () => {
    const email = uniqueEmail();
    const res = await freshBrowser().post("/api/auth/forgot-password", { email });
    const u = await createUser(t);
    const known = await freshBrowser().post("/api/auth/forgot-password", { email: u.email });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(known.json());
    expect(t.mail.to(email)).toHaveLength(0);
    await t.mail.link(u.email, "/reset-password?token=");
  });

  it("resets through the e-mailed link once, ends every session, and the new password works", async () => {
    const u = await createUser(t);
    const s1 = await signIn(t, u.email, GOOD_PASSWORD, "10.7.0.1");
    const s2 = await signIn(t, u.email, GOOD_PASSWORD, "10.7.0.2");
    const before = t.mail.to(u.email).length;
    await freshBrowser().post("/api/auth/forgot-password", { email: u.email });
    const link = await t.mail.link(u.email, "/reset-password?token=", before);
    expect(link.origin).toBe("http://localhost:3000");
    const token = link.searchParams.get("token") as string;

    const weak = await freshBrowser().post("/api/auth/reset-password", { token, newPassword: "weak" });
    expect(weak.statusCode).toBe(400);
    expect(weak.json().message).toBe(MESSAGES.employerPasswordRules);
    const common = await freshBrowser().post("/api/auth/reset-password", { token, newPassword: "P@ssw0rd" });
    expect(common.statusCode).toBe(400);
    expect(common.json().message).toBe(MESSAGES.passwordTooCommon);

    const ok = await freshBrowser().post("/api/auth/reset-password", { token, newPassword: "New-Secret-77" });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ message: MESSAGES.passwordReset });
    expect((await s1.get("/api/auth/whoami")).statusCode).toBe(401);
    expect((await s2.get("/api/auth/whoami")).statusCode).toBe(401);
    const again = await freshBrowser().post("/api/auth/reset-password", { token, newPassword: "Other-Secret-78" });
    expect(again.statusCode).toBe(400);
    expect(again.json().message).toBe(MESSAGES.invalidResetLink);
    expect((await passwordStep(freshBrowser(), u.email)).statusCode).toBe(401);
    expect((await passwordStep(freshBrowser(), u.email, "New-Secret-77")).statusCode).toBe(200);
  });

  it("a reset link expires after an hour", async () => {
    const u = await createUser(t);
    const before = t.mail.to(u.email).length;
    await freshBrowser().post("/api/auth/forgot-password", { email: u.email });
    const token = (await t.mail.link(u.email, "/reset-password?token=", before)).searchParams.get("token") as string;
    t.clock.advance(60 * 60_000 + 1000);
    const res = await freshBrowser().post("/api/auth/reset-password", { token, newPassword: "New-Secret-77" });
    expect(res.statusCode).toBe(400);
  });
});

describe("e-mail verification", () => {
  it("verifies through the e-mailed link once; an employer stays pending", async () => {
    const employer = await createUser(t, { role: "superuser", status: "pending", verified: false });
    await sendVerificationEmail(t.app.deps, employer);
    const link = await t.mail.link(employer.email, "/verify-email?");
    expect(link.searchParams.get("email")).toBe(employer.email);
    const body = { email: employer.email, token: link.searchParams.get("token") };
    const res = await freshBrowser().post("/api/auth/verify-email", body);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ role: "superuser", pending: true });
    expect((await freshBrowser().post("/api/auth/verify-email", body)).statusCode).toBe(400);
    expect((await passwordStep(freshBrowser(), employer.email)).json().message).toBe(MESSAGES.accountPending);

    const client = await createUser(t, { verified: false });
    await sendVerificationEmail(t.app.deps, client);
    const clink = await t.mail.link(client.email, "/verify-email?");
    const wrong = await freshBrowser().post("/api/auth/verify-email", {
      email: employer.email,
      token: clink.searchParams.get("token"),
    });
    expect(wrong.statusCode).toBe(400);
    const ok = await freshBrowser().post("/api/auth/verify-email", {
      email: client.email,
      token: clink.searchParams.get("token"),
    });
    expect(ok.json()).toEqual({ role: "client", pending: false });
    expect((await passwordStep(freshBrowser(), client.email)).statusCode).toBe(200);
  });
});

describe("e-mail verification under attack", () => {
  it("wrong links sent by others never use up the real one; one address gets 10 tries in 15 minutes", async () => {
    const user = await createUser(t, { verified: false });
    await sendVerificationEmail(t.app.deps, user);
    const link = await t.mail.link(user.email, "/verify-email?");
    for (let i = 0; i < 15; i++) {
      const res = await freshBrowser().post("/api/auth/verify-email", {
        email: user.email,
        token: `forged-${i}-token-x`,
      });
      expect(res.statusCode).toBe(400);
    }
    const ok = await freshBrowser().post("/api/auth/verify-email", {
      email: user.email,
      token: link.searchParams.get("token"),
    });
    expect(ok.statusCode).toBe(200);

    const one = freshBrowser();
    const answers: number[] = [];
    for (let i = 0; i < 12; i++) {
      answers.push(
        (await one.post("/api/auth/verify-email", { email: user.email, token: `again-${i}-token` })).statusCode,
      );
    }
    expect(answers.slice(0, 10).every((c) => c === 400)).toBe(true);
    expect(answers.slice(10)).toEqual([429, 429]);
  });
});

describe("bad input never changes anything and never yields a 5xx", () => {
  const endpoints = [
    "/api/auth/login",
    "/api/auth/verify-2fa",
    "/api/auth/forgot-password",
    "/api/auth/reset-password",
    "/api/auth/verify-email",
  ];
  const bodies: Array<[string, string, string]> = [
    ["malformed JSON", "{not json", "application/json"],
    ["a JSON array", "[]", "application/json"],
    ["a JSON string", '"hello"', "application/json"],
    ["null", "null", "application/json"],
    [
      "wrong types",
      JSON.stringify({ email: 42, password: [], code: {}, token: 7, newPassword: false }),
      "application/json",
    ],
    ["missing fields", "{}", "application/json"],
    ["an empty body", "", "application/json"],
    ["form encoding", "email=a%40b.c", "application/x-www-form-urlencoded"],
  ];
  for (const url of endpoints) {
    it(`${url} answers 4xx with a message`, async () => {
      const b = freshBrowser();
      await b.get("/api/auth/whoami");
      for (const [what, payload, type] of bodies) {
        const res = await t.app.inject({
          method: "POST",
          url,
          payload,
          remoteAddress: b.ip,
          headers: { "content-type": type, cookie: b.cookieHeader(), "x-xsrf-token": b.cookie("XSRF-TOKEN") ?? "" },
        });
        expect(res.statusCode, `${url} with ${what}`).toBeGreaterThanOrEqual(400);
        expect(res.statusCode, `${url} with ${what}`).toBeLessThan(500);
        expect(typeof res.json().message, `${url} with ${what}`).toBe("string");
      }
      const huge = await t.app.inject({
        method: "POST",
        url,
        payload: JSON.stringify({ email: "a@b.co", pad: "x".repeat(1_100_000) }),
        headers: {
          "content-type": "application/json",
          cookie: b.cookieHeader(),
          "x-xsrf-token": b.cookie("XSRF-TOKEN") ?? "",
        },
      });
      expect(huge.statusCode).toBe(413);
      expect(huge.json().message).toBe(MESSAGES.bodyTooLarge);
    });
  }

  it("an unknown /api path is a JSON 404", async () => {
    const res = await freshBrowser().get("/api/no-such-thing");
    expect(res.statusCode).toBe(404);
    expect(res.headers["content-type"]).toContain("application/json");
    expect(res.json()).toEqual({ message: MESSAGES.notFound, code: ERROR_CODES.notFound });
    const post = await freshBrowser().post("/api/no-such-thing", {});
    expect(post.statusCode).toBe(404);
  });
});

describe("Secure cookies behind https", () => {
  it("marks the session and CSRF cookies Secure when PUBLIC_URL is https", async () => {
    const s = await buildTestApp({
      env: { PUBLIC_URL: "https://callproof.example" },
      database: t.database,
      clock: t.clock,
    });
    try {
      const u = await createUser(s);
      const b = new Browser(s.app, "10.6.0.1", "https://callproof.example");
      const first = await b.get("/api/auth/whoami");
      expect(first.cookies.find((c) => c.name === "XSRF-TOKEN")?.secure).toBe(true);
      await b.post("/api/auth/login", { email: u.email, password: GOOD_PASSWORD });
      const code = await s.mail.signInCode(u.email);
      const res = await b.post("/api/auth/verify-2fa", { email: u.email, code });
      expect(res.cookies.find((c) => c.name === "__Host-cp_session")?.secure).toBe(true);
    } finally {
      await s.close();
    }
  });
});
