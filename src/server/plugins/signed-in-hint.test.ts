import { SIGNED_IN_HINT } from "@shared/constants";
import { expect, it } from "@test/app-test";
import { Browser, createUser, signIn } from "@test/helpers";

type Cookie = { name: string; value: string; httpOnly?: boolean; sameSite?: string };

it("sets a script-readable signed-in hint with the session cookie, and clears it at sign-out", async ({ t }) => {
  const user = await createUser(t);
  const browser = new Browser(t.app, "127.0.0.1", t.config.publicOrigin);
  await browser.post("/api/auth/login", { email: user.email, password: user.password });
  const code = await t.mail.signInCode(user.email);
  const step2 = await browser.post("/api/auth/verify-2fa", { email: user.email, code });
  const hint = (step2.cookies as Cookie[]).find((c) => c.name === SIGNED_IN_HINT);
  expect(hint).toMatchObject({ value: "1", sameSite: "Lax" });
  expect(hint?.httpOnly).toBeFalsy();
  expect((step2.cookies as Cookie[]).find((c) => c.name === "cp_session")?.httpOnly).toBe(true);

  const signOut = await browser.post("/api/auth/logout");
  expect(signOut.statusCode).toBe(200);
  expect(browser.cookie(SIGNED_IN_HINT)).toBeUndefined();
});

it("grants nothing by itself, and a hint without a session cookie is cleared", async ({ t }) => {
  const res = await t.app.inject({
    method: "GET",
    url: "/api/auth/whoami",
    headers: { cookie: `${SIGNED_IN_HINT}=1` },
  });
  expect(res.statusCode).toBe(401);
  expect((res.cookies as Cookie[]).find((c) => c.name === SIGNED_IN_HINT)?.value).toBe("");
});

it("a session that ended on the server clears the hint on the next call", async ({ t }) => {
  const user = await createUser(t);
  const browser = await signIn(t, user.email);
  expect(browser.cookie(SIGNED_IN_HINT)).toBe("1");
  t.clock.advance(31 * 60_000);
  expect((await browser.get("/api/auth/whoami")).statusCode).toBe(401);
  expect(browser.cookie(SIGNED_IN_HINT)).toBeUndefined();
});

it("a session that has no hint yet (from before it existed) gets it on its next call", async ({ t }) => {
  const user = await createUser(t);
  const browser = await signIn(t, user.email);
  const res = await t.app.inject({
    method: "GET",
    url: "/api/auth/whoami",
    headers: { cookie: `cp_session=${browser.cookie("cp_session")}` },
  });
  expect(res.statusCode).toBe(200);
  expect((res.cookies as Cookie[]).find((c) => c.name === SIGNED_IN_HINT)?.value).toBe("1");
});
