/**
 * The API keys panel of the employer dashboard: a superuser creates a key with a name and scopes, sees it
 * once (with Copy), finds it listed by its prefix, and revokes it with the "Confirm?" second press; the
 * key works until then and is 401 at once after. No serious or critical axe violation at 390 and 1280 px.
 */
import { API_KEY_TEXT } from "@shared/api-keys";
import { createEmployer } from "@test/fixtures";
import { describe, expect, it } from "vitest";
import { DESKTOP, openEmployerSection, openSignedIn, seriousViolations, setUpBrowserSuite } from "./support";

const suite = setUpBrowserSuite({ TRUST_PROXY: "127.0.0.1" });
const PHONE_390 = { width: 390, height: 844 } as const;

/** A call with the key that its codes:read scope allows (an unknown code: 404), or 401 once it is revoked. */
const v1 = (key: string) =>
  suite.server.app.inject({
    method: "GET",
    url: "/api/v1/codes/2147483647",
    headers: { authorization: `Bearer ${key}` },
  });

describe("API keys on the employer dashboard", () => {
  for (const viewport of [PHONE_390, DESKTOP]) {
    it(`creates a key shown once, lists it, and revokes it with a second press (${viewport.width} px)`, async () => {
      suite.server.clock.set(Date.now());
      const { user } = await createEmployer(suite.server);
      const page = await suite.newPage(viewport);
      await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: suite.server.url });
      await openSignedIn(page, suite.server, user, "/employer-dashboard");
      await openEmployerSection(page, "Integrations");
      const panel = page.getByRole("region", { name: API_KEY_TEXT.title, exact: true });
      await panel.getByText(API_KEY_TEXT.none).waitFor();

      // No scope chosen: refused on the page.
      await panel.getByLabel(API_KEY_TEXT.nameLabel).fill("Genesys desktop");
      await panel.getByRole("button", { name: API_KEY_TEXT.create }).click();
      await panel.getByText(API_KEY_TEXT.noScopes).waitFor();

      await panel.getByRole("checkbox", { name: /codes:write/ }).check();
      await panel.getByRole("checkbox", { name: /codes:read/ }).check();
      await panel.getByRole("button", { name: API_KEY_TEXT.create }).click();
      await panel.getByText(API_KEY_TEXT.created).waitFor();
      const key = (await panel.locator(".copyable__value").textContent()) ?? "";
      expect(key).toMatch(/^cpk_[A-Za-z0-9_-]{43}$/);
      await panel.getByRole("button", { name: /^Copy new api key$/ }).click();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);

      const row = panel.getByRole("row", { name: /Genesys desktop/ });
      await row.waitFor();
      expect(await row.textContent()).toContain(key.slice(0, 12));
      expect(await row.textContent()).toContain("codes:write");
      expect(await row.textContent()).toContain(API_KEY_TEXT.never);
      expect(await seriousViolations(page)).toEqual([]);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);

      // Shown once: after a reload only the prefix is left.
      expect((await v1(key)).statusCode).toBe(404); // a working key
      await page.reload();
      await row.waitFor();
      expect(await page.getByText(key).count()).toBe(0);
      expect(await row.textContent()).not.toContain(API_KEY_TEXT.never); // it was used

      // Revoke: the first press arms it, the second revokes.
      const revoke = row.getByRole("button", { name: /Revoke/ });
      await revoke.click();
      await row.getByRole("button", { name: /Confirm\?/ }).waitFor();
      expect((await v1(key)).statusCode).toBe(404);
      await row.getByRole("button", { name: /Confirm\?/ }).click();
      await panel.getByRole("status").filter({ hasText: API_KEY_TEXT.revoked }).waitFor();
      await panel.getByText(API_KEY_TEXT.none).waitFor();
      expect((await v1(key)).statusCode).toBe(401);
    });
  }
});
