import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { MESSAGES } from "@shared/messages";
import { anonymous, auditRows, freshIp, TRUST_PROXY_ENV } from "@test/fixtures";
import { Browser, buildTestApp, createUser, type TestApp, uniqueEmail } from "@test/helpers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp({ env: TRUST_PROXY_ENV });
});
afterEach(async () => {
  await t?.close();
});

/** The mail is sent after the answer, by the background runner: wait until it has nothing left to do. */
const settle = () => t.app.deps.background.idle();

describe("POST /api/auth/resend-verification", () => {
  it("mails a new link to an account waiting for verification, and the link verifies it", async () => {
    const user = await createUser(t, { verified: false });
    const res = await anonymous(t).post("/api/auth/resend-verification", { email: user.email.toUpperCase() });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: MESSAGES.verificationResent });
    const link = await t.mail.link(user.email, "/verify-email");
    const verified = await anonymous(t).post("/api/auth/verify-email", {
      email: link.searchParams.get("email"),
      token: link.searchParams.get("token"),
    });
    expect(verified.statusCode).toBe(200);
    await expect.poll(async () => (await auditRows(t, AUDIT_ACTIONS.resendVerification))[0]?.outcome).toBe("success");
  });

  it("answers the same for verified and unknown addresses, and mails nobody", async () => {
    const verified = await createUser(t);
    const unknown = uniqueEmail("nobody.example");
    for (const email of [verified.email, unknown]) {
      const res = await anonymous(t).post("/api/auth/resend-verification", { email });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ message: MESSAGES.verificationResent });
    }
    await settle();
    expect(t.mail.to(verified.email)).toHaveLength(0);
    expect(t.mail.to(unknown)).toHaveLength(0);
  });

  it("mails one account at most 3 times in 15 minutes, and takes 10 asks per IP", async () => {
    const user = await createUser(t, { verified: false });
    for (let i = 0; i < 5; i++) await anonymous(t).post("/api/auth/resend-verification", { email: user.email });
    await settle();
    expect(t.mail.to(user.email)).toHaveLength(3);

    const ip = freshIp();
    const browser = new Browser(t.app);
    const ask = () => browser.post("/api/auth/resend-verification", { email: user.email }, { "x-forwarded-for": ip });
    for (let i = 0; i < 10; i++) expect((await ask()).statusCode).toBe(200);
    const refused = await ask();
    expect(refused.statusCode).toBe(429);
    expect(refused.headers["retry-after"]).toBeDefined();
  });

  it("refuses a malformed address with 400", async () => {
    for (const body of [{}, { email: "not an email" }, { email: 42 }]) {
      expect((await anonymous(t).post("/api/auth/resend-verification", body)).statusCode).toBe(400);
    }
  });
});
