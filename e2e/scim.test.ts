/**
 * Provisioning (SCIM) on the employer dashboard: the base URL, a token created and shown once (it works
 * against the SCIM API at once), when it was created and last used, and "Revoke" pressed twice (the
 * token stops at once). Accessible at phone and desktop widths.
 */
import { SCIM_TEXT } from "@shared/scim";
import { createEmployer } from "@test/fixtures";
import { describe, expect, it } from "vitest";
import { DESKTOP, openEmployerSection, openSignedIn, seriousViolations, setUpBrowserSuite } from "./support";

const suite = setUpBrowserSuite();
const PHONE_390 = { width: 390, height: 844 };

const scimUsers = (token: string) =>
  suite.server.app.inject({ url: "/api/scim/v2/Users", headers: { authorization: `Bearer ${token}` } });

describe("Provisioning (SCIM) on the employer dashboard", () => {
  it("creates a token shown once, shows when it was used, and revokes it with a second press", async () => {
    suite.server.clock.set(Date.now());
    const { user } = await createEmployer(suite.server);
    const page = await suite.newPage(PHONE_390);
    await openSignedIn(page, suite.server, user, "/employer-dashboard");
    await openEmployerSection(page, "Integrations");
    const panel = page.getByRole("region", { name: SCIM_TEXT.title, exact: true });
    await panel.getByText(SCIM_TEXT.noToken).waitFor();
    await panel.getByText(`${suite.server.config.publicUrl}/api/scim/v2`).waitFor();
    expect(await seriousViolations(page, "section[aria-labelledby=scim-title]")).toEqual([]);

    await panel.getByRole("button", { name: SCIM_TEXT.create }).click();
    await panel.getByRole("status").filter({ hasText: SCIM_TEXT.created }).waitFor();
    const token = (await panel.locator("code", { hasText: /^cpscim_/ }).textContent()) ?? "";
    expect(token).toMatch(/^cpscim_[0-9a-f]{16}\./);
    expect((await scimUsers(token)).statusCode).toBe(200);
    await page.reload();
    await panel.getByText(SCIM_TEXT.lastUsedAt).waitFor();
    // Shown once: after a reload the token is gone from the page.
    expect(await panel.locator("code", { hasText: /^cpscim_/ }).count()).toBe(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(
      0,
    );
    await page.setViewportSize(DESKTOP);
    expect(await seriousViolations(page, "section[aria-labelledby=scim-title]")).toEqual([]);

    const revoke = panel.getByRole("button", { name: new RegExp(`^${SCIM_TEXT.revoke}`) });
    await revoke.click();
    await panel.getByRole("button", { name: /^Confirm\?/ }).waitFor();
    expect((await scimUsers(token)).statusCode).toBe(200); // one press does nothing yet
    await panel.getByRole("button", { name: /^Confirm\?/ }).click();
    await panel.getByText(SCIM_TEXT.revoked).waitFor();
    expect((await scimUsers(token)).statusCode).toBe(401);
    await panel.getByText(SCIM_TEXT.noToken).waitFor();
  });

  it("asks for a fresh sign-in 16 minutes after signing in, and offers to sign out (to the home page)", async () => {
    suite.server.clock.set(Date.now());
    const { user } = await createEmployer(suite.server);
    const page = await suite.newPage(PHONE_390);
    await openSignedIn(page, suite.server, user, "/employer-dashboard");
    await openEmployerSection(page, "Integrations");
    const panel = page.getByRole("region", { name: SCIM_TEXT.title, exact: true });
    await panel.getByText(SCIM_TEXT.noToken).waitFor();
    suite.server.clock.advance(16 * 60_000);
    await panel.getByRole("button", { name: SCIM_TEXT.create }).click();
    await panel.getByRole("alert").filter({ hasText: SCIM_TEXT.needsRecentSignIn }).waitFor();
    expect(await panel.locator("code", { hasText: /^cpscim_/ }).count()).toBe(0);
    expect(await seriousViolations(page, "section[aria-labelledby=scim-title]")).toEqual([]);
    await panel.getByRole("button", { name: SCIM_TEXT.signInAgain }).click();
    await page.waitForURL((url) => url.pathname === "/");
  });
});
