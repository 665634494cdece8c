import { ACCOUNT_TEXT } from "@shared/account-texts";
import { createUser } from "@test/helpers";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { DESKTOP, pathIs, seriousViolations, setUpBrowserSuite, signInThroughUi } from "./support";

const suite = setUpBrowserSuite();
const { newPage } = suite;

const PHONE_390 = { width: 390, height: 844 } as const;
const SCREENSHOTS = process.env.SCREENSHOT_DIR;

/**
 * Chromium's virtual authenticator, through the DevTools protocol: a platform authenticator that
 * keeps discoverable credentials and verifies the user (as a fingerprint reader would) at once.
 */
async function addVirtualAuthenticator(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable", { enableUI: false });
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  const credentials = async () => (await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials;
  return { credentials };
}

async function openAccount(page: Page) {
  await page.getByRole("navigation", { name: "Main", exact: true }).getByRole("link", { name: "Account" }).click();
  await page.waitForURL(pathIs("/account"));
  await page.getByRole("heading", { name: "Passkeys" }).waitFor();
}

async function signOut(page: Page) {
  await page.getByRole("navigation", { name: "Main", exact: true }).getByRole("button", { name: "Sign Out" }).click();
  await page.waitForURL(pathIs("/"));
  await page.getByRole("link", { name: "Log In", exact: true }).first().waitFor();
}

describe("account page and passkeys", () => {
  it("adds a passkey on /account, signs in with it alone, and a removed passkey no longer signs in", async () => {
    const user = await createUser(suite.server, { fullName: "Pia Passkey" });
    const page = await newPage();
    // Chromium's virtual authenticator answers an autofill (conditional) request at once, as if the
    // user had picked the passkey; this test presses the button, so the page finds no autofill.
    await page.addInitScript(() => {
      PublicKeyCredential.isConditionalMediationAvailable = async () => false;
    });
    const authenticator = await addVirtualAuthenticator(page);
    await signInThroughUi(page, suite.server, user.email, user.password, "/dashboard");

    await openAccount(page);
    await page.getByText(user.email).waitFor();
    await page.getByRole("button", { name: "Add a passkey" }).click();
    await page.getByRole("status").filter({ hasText: ACCOUNT_TEXT.passkeyAdded }).waitFor();
    const passkeys = page.getByRole("list", { name: "Your passkeys" }).getByRole("listitem");
    await expect.poll(() => passkeys.count()).toBe(1);
    expect(await passkeys.first().innerText()).toContain("Last used\nNever");
    expect(await authenticator.credentials()).toHaveLength(1);
    await suite.server.mail.waitFor(user.email, (m) => /passkey was added/i.test(m.subject));

    await signOut(page);
    const mailsBefore = suite.server.mail.to(user.email).length;
    await page.goto("/login");
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await page.waitForURL(pathIs("/dashboard"));
    await page.getByRole("button", { name: "Sign Out" }).first().waitFor();
    expect(suite.server.mail.to(user.email)).toHaveLength(mailsBefore);

    await openAccount(page);
    expect(await passkeys.first().innerText()).not.toContain("Never");
    const remove = passkeys.first().getByRole("button", { name: /Remove/ });
    await remove.click();
    await passkeys
      .first()
      .getByRole("button", { name: /Confirm\?/ })
      .click();
    await page.getByRole("status").filter({ hasText: ACCOUNT_TEXT.passkeyRemoved }).waitFor();
    await page.getByText("You have no passkeys yet.").waitFor();

    await signOut(page);
    await page.goto("/login");
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await page.getByRole("alert").filter({ hasText: ACCOUNT_TEXT.passkeyUnknown }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/login");
    expect((await page.request.get("/api/auth/whoami")).status()).toBe(401);
  });

  it("offers the passkey in the e-mail field's autofill, where choosing it signs in at once", async () => {
    const user = await createUser(suite.server, { role: "superuser" });
    const page = await newPage();
    await addVirtualAuthenticator(page);
    await signInThroughUi(page, suite.server, user.email, user.password, "/employer-dashboard");
    await openAccount(page);
    await page.getByRole("button", { name: "Add a passkey" }).click();
    await page.getByRole("status").filter({ hasText: ACCOUNT_TEXT.passkeyAdded }).waitFor();
    await signOut(page);

    const mailsBefore = suite.server.mail.to(user.email).length;
    await page.goto("/login");
    expect(await page.getByLabel("Email").getAttribute("autocomplete")).toBe("username webauthn");
    // the virtual authenticator picks the offered passkey without a click
    await page.waitForURL(pathIs("/employer-dashboard"));
    expect(suite.server.mail.to(user.email)).toHaveLength(mailsBefore);
  });

  it("changes the password and signs out another session", async () => {
    const user = await createUser(suite.server);
    const other = await newPage();
    await signInThroughUi(other, suite.server, user.email, user.password, "/dashboard");
    const page = await newPage();
    await signInThroughUi(page, suite.server, user.email, user.password, "/dashboard");
    await openAccount(page);

    const sessions = page.getByRole("list", { name: "Active sessions" }).getByRole("listitem");
    await expect.poll(() => sessions.count()).toBe(2);
    expect(await sessions.first().innerText()).toContain("This device");

    await page.getByLabel("Current password").fill(user.password);
    await page.getByLabel("New password", { exact: true }).fill("Another-Strong-Pass-9");
    await page.getByLabel("Confirm new password").fill("Another-Strong-Pass-9");
    await page.getByRole("button", { name: "Change password" }).click();
    await page.getByRole("status").filter({ hasText: ACCOUNT_TEXT.passwordChanged }).waitFor();
    await expect.poll(() => sessions.count()).toBe(1);
    expect((await other.request.get("/api/auth/whoami")).status()).toBe(401);
    await suite.server.mail.waitFor(user.email, (m) => /password was changed/i.test(m.subject));
  });

  for (const [label, viewport] of [
    ["phone", PHONE_390],
    ["desktop", DESKTOP],
  ] as const) {
    it(`has no serious or critical axe violations at ${viewport.width} px`, async () => {
      const user = await createUser(suite.server, { role: "superuser", fullName: "Axel Check" });
      const page = await newPage(viewport);
      await addVirtualAuthenticator(page);
      await signInThroughUi(page, suite.server, user.email, user.password);
      await page.goto("/account");
      await page.getByRole("heading", { name: "Passkeys" }).waitFor();
      await page.getByRole("button", { name: "Add a passkey" }).click();
      await page.getByRole("status").filter({ hasText: ACCOUNT_TEXT.passkeyAdded }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/account-${label}.png`, fullPage: true });
    });
  }

  it("shows the Account link in the phone menu", async () => {
    const user = await createUser(suite.server);
    const page = await newPage(PHONE_390);
    await signInThroughUi(page, suite.server, user.email, user.password, "/dashboard");
    await page.getByRole("button", { name: "Open menu" }).click();
    await page.getByRole("navigation", { name: "Menu" }).getByRole("link", { name: "Account" }).click();
    await page.waitForURL(pathIs("/account"));
    await page.getByRole("heading", { name: "Account", level: 1 }).waitFor();
  });
});
