import { ERROR_CODES } from "@shared/error-codes";
import { buildTestApp, createUser, GOOD_PASSWORD, type TestApp } from "@test/helpers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe("a percent-encoded path is checked as the route it reaches", () => {
  it("POST /%61pi/auth/login from a foreign page without a CSRF token is refused and starts no session", async () => {
    const user = await createUser(t);
    const res = await t.app.inject({
      method: "POST",
      url: "/%61pi/auth/login",
      headers: { "content-type": "application/json", origin: "https://evil.example" },
      payload: { email: user.email, password: GOOD_PASSWORD },
    });
    expect(res.statusCode).toBe(403);
    expect([ERROR_CODES.foreignOrigin, ERROR_CODES.csrfFailed]).toContain(res.json().code);
    expect(String(res.headers["set-cookie"] ?? "")).not.toMatch(/cp_session=[^;]/);
    expect(t.mail.to(user.email)).toHaveLength(0);
  });

  it("answers an encoded API path with no-store, like the plain one", async () => {
    const res = await t.app.inject({ method: "GET", url: "/%61pi/public-config" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["cache-control"]).toBe("no-store");
  });
});
