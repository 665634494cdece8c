import { auditLog } from "@server/db/schema";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { Browser, buildTestApp, type TestApp } from "@test/helpers";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { TRUST_PROXY: "127.0.0.1" } });
});
afterAll(async () => {
  await t?.close();
});

const rowsOf = async (action: string) =>
  (await t.database.db.select({ id: auditLog.id }).from(auditLog).where(eq(auditLog.action, action))).length;

/** 300 made-up requests from one client address; the answers it got. */
async function flood(url: string, body: (i: number) => unknown, ip: string) {
  const browser = new Browser(t.app, ip, t.config.publicOrigin);
  const codes: number[] = [];
  for (let i = 0; i < 300; i++) codes.push((await browser.post(url, body(i))).statusCode);
  return codes;
}

describe("a flood of anonymous requests does not grow the audit log", () => {
  it("reset-password: 10 made-up links per address in 15 minutes, then 429; a handful of rows", async () => {
    const codes = await flood(
      "/api/auth/reset-password",
      (i) => ({ token: `made-up-${i}`, newPassword: "New-Secret-77" }),
      "10.9.0.1",
    );
    expect(codes.slice(0, 10).every((c) => c === 400)).toBe(true);
    expect(codes.slice(10).every((c) => c === 429)).toBe(true);
    expect(await rowsOf(AUDIT_ACTIONS.resetPassword)).toBeLessThanOrEqual(13);
  });

  it("verify-email: the same", async () => {
    const codes = await flood(
      "/api/auth/verify-email",
      (i) => ({ email: `x${i}@example.com`, token: `t-${i}` }),
      "10.9.0.2",
    );
    expect(codes.filter((c) => c === 429)).toHaveLength(290);
    expect(await rowsOf(AUDIT_ACTIONS.verifyEmail)).toBeLessThanOrEqual(13);
  });

  it("passkey sign-in: 30 forged assertions per address in 15 minutes, then 429; a handful of rows", async () => {
    const assertion = (i: number) => ({
      response: {
        id: `forged-${i}`,
        rawId: `forged-${i}`,
        type: "public-key",
        clientExtensionResults: {},
        response: { clientDataJSON: "e30", authenticatorData: "AA", signature: "AA" },
      },
    });
    const codes = await flood("/api/auth/passkey/verify", assertion, "10.9.0.3");
    expect(codes.slice(0, 30).every((c) => c >= 400 && c < 500 && c !== 429)).toBe(true);
    expect(codes.slice(30).every((c) => c === 429)).toBe(true);
    expect(await rowsOf(AUDIT_ACTIONS.passkeySignIn)).toBeLessThanOrEqual(33);
  });
});
