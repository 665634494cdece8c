import { auditLog } from "@server/db/schema";
import { MESSAGES } from "@shared/messages";
import { Browser, buildTestApp, createUser, GOOD_PASSWORD, type TestApp, uniqueEmail } from "@test/helpers";
import { and, eq, sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp();
});
afterEach(async () => {
  await t?.close();
});

let ipSeq = 0;
const freshIp = () => `10.7.${Math.floor(++ipSeq / 250)}.${ipSeq % 250}`;

/** A code that is not `code`. */
const wrongFor = (code: string) => (code === "000000" ? "111111" : "000000");

/** The password step, then five wrong codes; returns the right code it never used. */
async function roundOfWrongCodes(b: Browser, email: string) {
  const before = t.mail.to(email).length;
  const login = await b.post("/api/auth/login", { email, password: GOOD_PASSWORD });
  expect(login.statusCode, login.body).toBe(200);
  const code = await t.mail.signInCode(email, before);
  for (let i = 0; i < 5; i++) {
    const res = await b.post("/api/auth/verify-2fa", { email, code: wrongFor(code) });
    expect(res.statusCode).toBe(401);
  }
  return code;
}

describe("sign-in codes cannot be guessed without end", () => {
  it("3 rounds of right password + 5 wrong codes end in 429 on both steps, with Retry-After", async () => {
    const u = await createUser(t);
    const b = new Browser(t.app, freshIp());
    await roundOfWrongCodes(b, u.email);
    await roundOfWrongCodes(b, u.email);
    const third = await b.post("/api/auth/login", { email: u.email, password: GOOD_PASSWORD });
    expect(third.statusCode).toBe(429);
    expect(Number(third.headers["retry-after"])).toBeGreaterThan(0);
    // from any other address too: the count is the account's
    const elsewhere = new Browser(t.app, freshIp());
    expect((await elsewhere.post("/api/auth/login", { email: u.email, password: GOOD_PASSWORD })).statusCode).toBe(429);
    const step2 = await elsewhere.post("/api/auth/verify-2fa", { email: u.email, code: "123456" });
    expect(step2.statusCode).toBe(429);
    expect(Number(step2.headers["retry-after"])).toBeGreaterThan(0);

    // an hour later the account may try again
    t.clock.advance(60 * 60_000 + 1000);
    expect((await b.post("/api/auth/login", { email: u.email, password: GOOD_PASSWORD })).statusCode).toBe(200);
  });

  it("made-up codes without the password step never lock the owner out (they count against the IP only)", async () => {
    const owner = await createUser(t);
    for (let i = 0; i < 12; i++) {
      const stranger = new Browser(t.app, freshIp());
      const res = await stranger.post("/api/auth/verify-2fa", { email: owner.email, code: String(100000 + i) });
      expect(res.statusCode).toBe(401);
      expect(res.json().message).toBe(MESSAGES.invalidSignInCode);
    }
    const b = new Browser(t.app, freshIp());
    const login = await b.post("/api/auth/login", { email: owner.email, password: GOOD_PASSWORD });
    expect(login.statusCode, login.body).toBe(200);
    const code = await t.mail.signInCode(owner.email);
    expect((await b.post("/api/auth/verify-2fa", { email: owner.email, code })).statusCode).toBe(200);
  });

  it("allows 30 wrong codes per IP in 15 minutes across accounts", async () => {
    const ip = freshIp();
    const b = new Browser(t.app, ip);
    for (let i = 0; i < 3; i++) {
      const u = await createUser(t);
      await roundOfWrongCodes(b, u.email);
      await roundOfWrongCodes(b, u.email);
    }
    const next = await createUser(t);
    expect((await b.post("/api/auth/login", { email: next.email, password: GOOD_PASSWORD })).statusCode).toBe(429);
    expect(
      (await new Browser(t.app, freshIp()).post("/api/auth/login", { email: next.email, password: GOOD_PASSWORD }))
        .statusCode,
    ).toBe(200);
  });

  it("answers one message for every failure of the code step", async () => {
    const u = await createUser(t);
    const b = new Browser(t.app, freshIp());
    const never = await b.post("/api/auth/verify-2fa", { email: u.email, code: "123456" });
    const unknown = await b.post("/api/auth/verify-2fa", { email: uniqueEmail(), code: "123456" });
    const code = await roundOfWrongCodes(b, u.email);
    const exhausted = await b.post("/api/auth/verify-2fa", { email: u.email, code });
    const answers = [never, unknown, exhausted].map((r) => [r.statusCode, r.json()]);
    expect(answers).toEqual(Array(3).fill([401, { message: MESSAGES.invalidSignInCode, code: "auth.invalid_code" }]));
  });
});

describe("password guesses", () => {
  it("30 parallel wrong passwords evaluate at most 10; the rest are 429 before any hash", async () => {
    const u = await createUser(t);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        new Browser(t.app, freshIp()).post("/api/auth/login", { email: u.email, password: `Wrong-Password-${i}` }),
      ),
    );
    const statuses = answers.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(10);
    expect(statuses.filter((s) => s === 401 || s === 429)).toHaveLength(30);
    const [evaluated] = await t.database.db
      .select({ n: sql<number>`count(*)::int` })
      .from(auditLog)
      .where(and(eq(auditLog.action, "auth.login"), eq(auditLog.outcome, "failure")));
    expect(evaluated?.n).toBeLessThanOrEqual(10);
    // the right password is refused too until the window passes
    expect(
      (await new Browser(t.app, freshIp()).post("/api/auth/login", { email: u.email, password: GOOD_PASSWORD }))
        .statusCode,
    ).toBe(429);
  });

  it("a right password gives its reserved attempt back", async () => {
    const u = await createUser(t);
    const b = new Browser(t.app, freshIp());
    for (let i = 0; i < 9; i++)
      expect((await b.post("/api/auth/login", { email: u.email, password: "Wrong-Password-1" })).statusCode).toBe(401);
    for (let i = 0; i < 3; i++)
      expect((await b.post("/api/auth/login", { email: u.email, password: GOOD_PASSWORD })).statusCode).toBe(200);
    expect((await b.post("/api/auth/login", { email: u.email, password: "Wrong-Password-1" })).statusCode).toBe(401);
    expect((await b.post("/api/auth/login", { email: u.email, password: "Wrong-Password-1" })).statusCode).toBe(429);
  });

  it("rate-limit keys never hold the e-mail (a keyed hash of it), and the account's limits still hold", async () => {
    const u = await createUser(t);
    const keys = async () =>
      (await t.database.db.rows<{ key: string }>(sql`select key from rate_limits order by key`)).map((r) => r.key);
    // 10 wrong passwords and a made-up code, each from another address: the account's counters fill.
    for (let i = 0; i < 10; i++) {
      const b = new Browser(t.app, freshIp());
      expect((await b.post("/api/auth/login", { email: u.email, password: "Wrong-Password-1" })).statusCode).toBe(401);
    }
    const b = new Browser(t.app, freshIp());
    expect((await b.post("/api/auth/verify-2fa", { email: u.email, code: "123456" })).statusCode).toBe(401);
    const [local = "", domain = ""] = u.email.split("@");
    const stored = await keys();
    expect(stored.some((k) => k.startsWith("signin-fail:acct:"))).toBe(true);
    for (const key of stored) {
      expect(key).not.toContain(local);
      expect(key).not.toContain(domain);
    }
    // The 11th wrong password, from yet another address, is refused: the key is the account's, whatever the address.
    expect((await b.post("/api/auth/login", { email: u.email, password: GOOD_PASSWORD })).statusCode).toBe(429);
    // Another account is not affected.
    const other = await createUser(t);
    expect((await b.post("/api/auth/login", { email: other.email, password: GOOD_PASSWORD })).statusCode).toBe(200);
  });

  it("a flood of throttled sign-ins is counted, not written one audit row each", async () => {
    const u = await createUser(t);
    const b = new Browser(t.app, freshIp());
    for (let i = 0; i < 200; i++) await b.post("/api/auth/login", { email: u.email, password: "Wrong-Password-1" });
    const rows = await t.database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, "auth.login"))
      .orderBy(auditLog.id);
    // 10 evaluated failures, then refusals number 1, 10 and 100 of the 190
    expect(rows.length).toBeLessThanOrEqual(13);
    expect(rows.filter((r) => r.outcome === "denied").map((r) => r.detail?.refused)).toEqual([1, 10, 100]);
  });
});

describe("forgot-password", () => {
  it("answers before its mail is sent: the same answer with the mail server down, known e-mail or not", async () => {
    const u = await createUser(t);
    await t.mail.close();
    const b = new Browser(t.app, freshIp());
    const known = await b.post("/api/auth/forgot-password", { email: u.email });
    const unknown = await b.post("/api/auth/forgot-password", { email: uniqueEmail() });
    expect(known.statusCode).toBe(200);
    expect([known.statusCode, known.json()]).toEqual([unknown.statusCode, unknown.json()]);
  });
});
