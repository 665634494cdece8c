import { sendVerificationEmail } from "@server/features/auth/service";
import { RESET_KEEPS_PASSKEYS } from "@shared/account-texts";
import { MESSAGES } from "@shared/messages";
import { createUser } from "@test/helpers";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { PHONE, pathIs, settled, setUpBrowserSuite, signInThroughUi } from "./support";

const suite = setUpBrowserSuite();
const { newPage } = suite;

/** The navigation an admin sees, in the bar and in the phone menu. */
const ADMIN_LINKS = ["In a call?", "About Us", "Contact Us", "Widget", "GenerateID", "Add Users", "Admin", "Account"];

/** The links of the visible navigation bar, by their exact names. */
async function visibleNavLinks(page: Page): Promise<string[]> {
  return page.getByRole("navigation", { name: "Main", exact: true }).getByRole("link").allInnerTexts();
}

describe("sign-in", () => {
  it("signs an admin in through both steps and lands on /admin", async () => {
    const admin = await createUser(suite.server, { role: "admin" });
    const page = await newPage();
    await page.goto("/login");
    await page.getByLabel("Email").fill(admin.email);
    await page.getByLabel("Password").fill(admin.password);
    await page.getByRole("button", { name: "Log In" }).click();

    await page.getByRole("heading", { name: "Enter 2FA Code from Email" }).waitFor();
    await page.getByRole("status").filter({ hasText: MESSAGES.signInCodeSent }).waitFor();
    const codeField = page.getByLabel("Code");
    expect(await codeField.getAttribute("inputmode")).toBe("numeric");
    expect(await codeField.getAttribute("autocomplete")).toBe("one-time-code");
    expect(await codeField.evaluate((el) => el === document.activeElement)).toBe(true);

    await codeField.fill(await suite.server.mail.signInCode(admin.email));
    await page.getByRole("button", { name: "Log In" }).click();
    await page.waitForURL(pathIs("/admin"));

    await expect.poll(() => visibleNavLinks(page)).toEqual(ADMIN_LINKS);
    await page.getByRole("button", { name: "Sign Out" }).waitFor();
    expect(await page.getByRole("link", { name: "Log In", exact: true }).count()).toBe(0);
  });

  it("shows the server's error in red under the form for a wrong password", async () => {
    const user = await createUser(suite.server);
    const page = await newPage();
    await page.goto("/login");
    await page.getByLabel("Email").fill(user.email);
    await page.getByLabel("Password").fill("Wrong-password-1");
    await page.getByRole("button", { name: "Log In" }).click();

    const alert = page.getByRole("alert");
    await alert.filter({ hasText: MESSAGES.invalidCredentials }).waitFor();
    expect(await alert.evaluate((el) => getComputedStyle(el).color)).toBe("rgb(180, 35, 24)");
    const errorId = await alert.getAttribute("id");
    expect(await page.getByLabel("Password").getAttribute("aria-describedby")).toContain(errorId);
    expect(page.url()).toContain("/login");
    await page.getByRole("heading", { name: "Log In" }).waitFor();
  });

  it("shows '2FA failed' with the server's reason for a wrong code, and can go back to step 1", async () => {
    const user = await createUser(suite.server);
    const page = await newPage();
    await page.goto(`/login?step=2&email=${encodeURIComponent(user.email)}`);
    await page.getByRole("heading", { name: "Enter 2FA Code from Email" }).waitFor();
    await page.getByLabel("Code").fill("000000");
    await page.getByRole("button", { name: "Log In" }).click();
    const alert = page.getByRole("alert").filter({ hasText: MESSAGES.invalidSignInCode });
    await alert.waitFor();
    expect(await alert.textContent()).toBe(`${MESSAGES.twoFactorFailed}: ${MESSAGES.invalidSignInCode}`);

    await page.getByRole("button", { name: "Back to email and password" }).click();
    await page.getByRole("heading", { name: "Log In" }).waitFor();
    expect(await page.getByLabel("Email").inputValue()).toBe(user.email);
  });

  it("lands a superuser on /employer-dashboard, a client on /dashboard", async () => {
    const superuser = await createUser(suite.server, { role: "superuser" });
    const employerPage = await newPage();
    await signInThroughUi(employerPage, suite.server, superuser.email, superuser.password);
    expect(new URL(employerPage.url()).pathname).toBe("/employer-dashboard");
    await expect.poll(() => visibleNavLinks(employerPage)).toContain("Add Users");
    expect(await visibleNavLinks(employerPage)).not.toContain("Admin");

    const client = await createUser(suite.server, { role: "client" });
    const clientPage = await newPage();
    await signInThroughUi(clientPage, suite.server, client.email, client.password);
    expect(new URL(clientPage.url()).pathname).toBe("/dashboard");
    // once the signed-in links are there, Add Users is not among them
    await expect.poll(() => visibleNavLinks(clientPage)).toContain("GenerateID");
    expect(await visibleNavLinks(clientPage)).not.toContain("Add Users");
  });

  it("explains the e-mail verification outcome passed to /login", async () => {
    const page = await newPage();
    await page.goto("/login?verified=true&email=someone%40example.com");
    await page.getByRole("status").filter({ hasText: MESSAGES.emailVerified }).waitFor();
    expect(await page.getByLabel("Email").inputValue()).toBe("someone@example.com");

    await page.goto("/login?verified=true&pending=1&email=boss%40example.com");
    await page.getByText(MESSAGES.emailVerifiedPending).waitFor();

    await page.goto("/login?verification=failed");
    await page.getByRole("alert").filter({ hasText: MESSAGES.emailVerificationFailed }).waitFor();
  });
});

describe("e-mail verification link", () => {
  it("verifies once and goes to /login with the e-mail; a reused link fails", async () => {
    const user = await createUser(suite.server, { verified: false });
    await sendVerificationEmail(suite.server.app.deps, user);
    const link = await suite.server.mail.link(user.email, "/verify-email?");
    const page = await newPage();
    await page.goto(link.href);
    await page.waitForURL(pathIs("/login"));
    await page.getByText(MESSAGES.emailVerified).waitFor();
    const landed = new URL(page.url());
    expect(landed.searchParams.get("verified")).toBe("true");
    expect(landed.searchParams.get("email")).toBe(user.email);
    expect(landed.searchParams.has("pending")).toBe(false);
    expect(await page.getByLabel("Email").inputValue()).toBe(user.email);

    await page.goto(link.href);
    await page.waitForURL((url) => url.searchParams.get("verification") === "failed");
    await page.getByText(MESSAGES.emailVerificationFailed).waitFor();
  });

  it("marks an employer awaiting activation with pending=1", async () => {
    const employer = await createUser(suite.server, { role: "superuser", status: "pending", verified: false });
    await sendVerificationEmail(suite.server.app.deps, employer);
    const link = await suite.server.mail.link(employer.email, "/verify-email?");
    const page = await newPage();
    await page.goto(link.href);
    await page.waitForURL((url) => url.searchParams.get("pending") === "1");
    await page.getByText(MESSAGES.emailVerifiedPending).waitFor();
  });

  it("without its parameters shows a short message and logs a warning (no console error)", async () => {
    const page = await newPage();
    const logged: string[] = [];
    page.on("console", (m) => logged.push(`${m.type()}: ${m.text()}`));
    await page.goto("/verify-email");
    await page.getByText(MESSAGES.invalidVerificationLink).waitFor();
    expect(new URL(page.url()).pathname).toBe("/verify-email");
    expect(logged.some((e) => e.startsWith("warning:") && e.includes("missing its email or token"))).toBe(true);
    expect(logged.filter((e) => e.startsWith("error:"))).toEqual([]);
  });
});

describe("route guards", () => {
  it("keeps visitors who are not signed in out of the signed-in pages", async () => {
    const page = await newPage();
    await page.goto("/dashboard");
    await page.waitForURL(pathIs("/login"));

    await page.goto("/admin");
    await page.waitForURL(pathIs("/unauthorized"));
    await page.getByRole("link", { name: "Go to Log In" }).waitFor();

    await page.goto("/employer-dashboard");
    await page.waitForURL(pathIs("/unauthorized"));

    await page.goto("/download");
    await page.getByText(MESSAGES.notAuthorizedForPage).waitFor();
    expect(new URL(page.url()).pathname).toBe("/download");

    await page.goto("/no/such/page");
    await page.waitForURL(pathIs("/"));
    await expect
      .poll(() => visibleNavLinks(page))
      .toEqual(["In a call?", "About Us", "Contact Us", "Sign Up", "Log In"]);
  });

  it("keeps a client out of /admin and /employer-dashboard; sign-out returns to / signed out", async () => {
    const client = await createUser(suite.server, { role: "client" });
    const page = await newPage();
    await signInThroughUi(page, suite.server, client.email, client.password);

    await page.goto("/admin");
    await page.waitForURL(pathIs("/unauthorized"));
    await page.goto("/employer-dashboard");
    await page.waitForURL(pathIs("/unauthorized"));
    await page.goto("/download");
    expect(await page.getByText(MESSAGES.notAuthorizedForPage).count()).toBe(0);

    await page.goto("/dashboard");
    await page.getByRole("button", { name: "Sign Out" }).click();
    await page.waitForURL(pathIs("/"));
    await page.getByRole("link", { name: "Log In", exact: true }).waitFor();
    expect(await page.getByRole("button", { name: "Sign Out" }).count()).toBe(0);
    // It stays on / (the dashboard's guard must not send the signed-out visitor on to /login).
    await settled(page);
    expect(new URL(page.url()).pathname).toBe("/");

    // The session really ended: a reload stays signed out.
    await page.reload();
    await page.getByRole("link", { name: "Log In", exact: true }).waitFor();
    await page.goto("/dashboard");
    await page.waitForURL(pathIs("/login"));
  });
});

describe("password reset", () => {
  it("sends a link, sets a new password, returns to /login, and the new password signs in", async () => {
    const user = await createUser(suite.server);
    const page = await newPage();
    await page.goto("/login");
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    await page.waitForURL(pathIs("/forgot-password"));
    await page.getByLabel("Email").fill(user.email);
    await page.getByRole("button", { name: "Send Reset Link" }).click();
    await page.getByRole("status").filter({ hasText: MESSAGES.resetLinkSent }).waitFor();

    const link = await suite.server.mail.link(user.email, "/reset-password");
    await page.goto(link.href);
    const field = page.getByLabel("New password");
    // The page says what happens to passkeys: they are kept.
    await page.getByText(RESET_KEEPS_PASSKEYS).waitFor();
    await field.fill("weakpassword");
    await page.getByRole("button", { name: "Reset Password" }).click();
    await page.getByText(MESSAGES.employerPasswordRules, { exact: true }).last().waitFor();
    expect(await field.getAttribute("aria-invalid")).toBe("true");

    const newPassword = "Brand-New-Secret-77";
    await field.fill(newPassword);
    await page.getByRole("button", { name: "Reset Password" }).click();
    await page.getByRole("status").filter({ hasText: MESSAGES.passwordReset }).waitFor();
    await page.waitForURL(pathIs("/login"), { timeout: 5_000 });

    await signInThroughUi(page, suite.server, user.email, newPassword);
    expect(new URL(page.url()).pathname).toBe("/dashboard");
  });

  it("explains a reset link without a token", async () => {
    const page = await newPage();
    await page.goto("/reset-password");
    await page.getByText(MESSAGES.invalidResetLink).waitFor();
    await page.getByRole("link", { name: "ask for a new link" }).click();
    await page.waitForURL(pathIs("/forgot-password"));
  });
});

describe("public pages", () => {
  it("home, about and contact say what they should", async () => {
    const page = await newPage();
    await page.goto("/");
    await page.getByRole("heading", { level: 1 }).waitFor();
    await page.getByRole("heading", { name: "How it works" }).waitFor();
    expect(await page.getByText(`© ${new Date().getFullYear()} CallProof, all rights reserved.`).count()).toBe(1);

    await page.getByRole("link", { name: "About Us", exact: true }).click();
    await page.waitForURL(pathIs("/about-us"));
    const steps = page.getByRole("region", { name: "Getting started" }).getByRole("listitem");
    await expect.poll(() => steps.count()).toBe(3);
    const features = page.getByRole("region", { name: "Security features" }).getByRole("listitem");
    await expect.poll(() => features.count()).toBe(8);

    await page.getByRole("link", { name: "Contact Us", exact: true }).click();
    await page.waitForURL(pathIs("/contact"));
    const mail = page.getByRole("link", { name: suite.server.config.supportEmail });
    await mail.waitFor();
    expect(await mail.getAttribute("href")).toBe(`mailto:${suite.server.config.supportEmail}`);
    await page.getByText("We reply within 3 working days.").waitFor();
  });
});

describe("phone width", () => {
  it("opens a slide-in menu with the same links; Escape closes it", async () => {
    const page = await newPage(PHONE);
    await page.goto("/");
    expect(await page.getByRole("link", { name: "Log In", exact: true }).count()).toBe(0);

    const button = page.getByRole("button", { name: /menu/i });
    expect(await button.getAttribute("aria-expanded")).toBe("false");
    await button.click();
    expect(await button.getAttribute("aria-expanded")).toBe("true");
    const menu = page.getByRole("navigation", { name: "Menu", exact: true });
    await menu.waitFor();
    await expect
      .poll(() => menu.getByRole("link").allInnerTexts())
      .toEqual(["In a call?", "About Us", "Contact Us", "Sign Up", "Log In"]);
    // Focus moves into the menu and Escape closes it, giving focus back to the button.
    expect(await menu.evaluate((el) => el.contains(document.activeElement))).toBe(true);
    await page.keyboard.press("Escape");
    await menu.waitFor({ state: "hidden" });
    expect(await button.getAttribute("aria-expanded")).toBe("false");
    expect(await button.evaluate((el) => el === document.activeElement)).toBe(true);

    await button.click();
    await menu.getByRole("link", { name: "About Us" }).click();
    await page.waitForURL(pathIs("/about-us"));
    await menu.waitFor({ state: "hidden" });
  });

  it("fits a 320 px screen without sideways scrolling", async () => {
    const page = await newPage({ width: 320, height: 640 });
    for (const path of [
      "/",
      "/about-us",
      "/contact",
      "/login",
      "/login?step=2&email=a-rather-long.address%40example.com",
      "/forgot-password",
      "/reset-password?token=x",
      "/unauthorized",
    ]) {
      await page.goto(path);
      await page.getByRole("heading", { level: 1 }).waitFor();
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width, path).toBeLessThanOrEqual(320);
    }
  });

  it("shows the signed-in links and Sign Out in the menu", async () => {
    const admin = await createUser(suite.server, { role: "admin" });
    const page = await newPage(PHONE);
    await signInThroughUi(page, suite.server, admin.email, admin.password);
    await page.getByRole("button", { name: /menu/i }).click();
    const menu = page.getByRole("navigation", { name: "Menu", exact: true });
    await menu.waitFor();
    await expect.poll(() => menu.getByRole("link").allInnerTexts()).toEqual(ADMIN_LINKS);
    // The specification's name of the admin dashboard leads there too.
    await page.goto("/admin-dashboard");
    await page.waitForURL(pathIs("/admin"));
    await page.getByRole("heading", { level: 1, name: /admin/i }).waitFor();
    await page.getByRole("button", { name: /menu/i }).click();
    await menu.getByRole("button", { name: "Sign Out" }).click();
    await page.waitForURL(pathIs("/"));
    await settled(page);
    expect(new URL(page.url()).pathname).toBe("/");
    await page.getByRole("button", { name: /menu/i }).click();
    await menu.getByRole("link", { name: "Log In" }).waitFor();
  });
});
