import { buildTestApp, createUser, signIn, type TestApp } from "@test/helpers";
import { afterEach, expect, it } from "vitest";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
});

it("with an https PUBLIC_URL, sends HSTS and names the session cookie __Host- (Secure, path /, no domain)", async () => {
  t = await buildTestApp({ env: { PUBLIC_URL: "https://callproof.example" } });
  const u = await createUser(t);
  const browser = await signIn(t, u.email);
  const res = await browser.get("/api/auth/whoami");
  expect(res.statusCode).toBe(200);
  expect(res.headers["strict-transport-security"]).toMatch(/^max-age=\d{7,}; includeSubDomains$/);
  expect(browser.cookie("__Host-cp_session")).toBeTruthy();
});

it("over plain http, sends no HSTS and keeps the plain cookie name", async () => {
  t = await buildTestApp();
  const u = await createUser(t);
  const browser = await signIn(t, u.email);
  const res = await browser.get("/api/auth/whoami");
  expect(res.headers["strict-transport-security"]).toBeUndefined();
  expect(browser.cookie("cp_session")).toBeTruthy();
});
