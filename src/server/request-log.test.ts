import { createEmployer, signInAdmin } from "@test/fixtures";
import { Browser, buildTestApp, createUser, GOOD_PASSWORD, signIn, type TestApp, uniqueEmail } from "@test/helpers";
import { afterEach, expect, it } from "vitest";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
});

it("request logs hold no token, code, cookie or Authorization header, in a run that opens every e-mailed link", async () => {
  const lines: string[] = [];
  t = await buildTestApp({ log: (line) => lines.push(line) });
  const app = t;
  const secrets: string[] = [];
  const open = async (link: URL) => {
    // what a browser does when the link is clicked: load the page the link names
    await app.app.inject({ method: "GET", url: `${link.pathname}${link.search}` });
    for (const value of link.searchParams.values()) if (value.length >= 6) secrets.push(value);
  };

  // employer invitation
  const { browser: admin } = await signInAdmin(app);
  const bossEmail = uniqueEmail(`log${Date.now()}.example`, "boss");
  const invited = await admin.post("/api/admin/generate-employer-access-code", { email: bossEmail });
  await open(await app.mail.link(bossEmail, "/employer-access-code?"));
  secrets.push(invited.json().code);

  // e-mail verification and password reset of an existing user
  const { user } = await createEmployer(app);
  const resetBefore = app.mail.to(user.email).length;
  await admin.post("/api/auth/forgot-password", { email: user.email });
  const reset = await app.mail.link(user.email, "/reset-password?", resetBefore);
  await open(reset);
  await admin.post("/api/auth/reset-password", {
    token: reset.searchParams.get("token"),
    newPassword: "New-Password-42!",
  });

  const unverified = await createUser(app, { verified: false });
  await new Browser(app.app).post("/api/auth/login", { email: unverified.email, password: GOOD_PASSWORD });
  const verifyLink = await app.mail.link(unverified.email, "/verify-email?");
  await open(verifyLink);

  // a sign-in code, a session cookie and an Authorization header
  const someone = await createUser(app);
  const browser = await signIn(app, someone.email);
  secrets.push(await app.mail.signInCode(someone.email));
  const session = browser.cookieHeader();
  await browser.get("/api/auth/whoami", { authorization: "Bearer very-secret-bearer-token" });
  secrets.push("very-secret-bearer-token", ...session.split("; ").map((c) => c.slice(c.indexOf("=") + 1)));

  const log = lines.join("\n");
  expect(log).toContain("/verify-email");
  expect(log).toContain("/reset-password");
  for (const secret of secrets.filter((s) => s.length >= 6)) expect(log).not.toContain(secret);
  expect(log.toLowerCase()).not.toContain("authorization");
  expect(log.toLowerCase()).not.toContain("cookie");
});
