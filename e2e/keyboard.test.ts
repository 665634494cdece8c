/**
 * Keyboard only: sign in, generate a code, verify it in the widget, deactivate an employee through the
 * Confirm? second press, the phone menu, and the employer dashboard's section navigation on a phone and a
 * desktop, all with Tab, Enter and Escape; every focused control shows a visible focus indicator.
 */
import { CODES_TEXT, WIDGET_TEXT } from "@shared/codes";
import { createOrganisation } from "@test/fixtures";
import { createUser, GOOD_PASSWORD } from "@test/helpers";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { DESKTOP, openSignedIn, PHONE, pathIs, setUpBrowserSuite } from "./support";

const suite = setUpBrowserSuite();

/** The focused element's accessible-ish name, and whether it shows a focus indicator (outline or ring). */
function focused(page: Page) {
  return page.evaluate(() => {
    let el = document.activeElement as HTMLElement | null;
    while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement as HTMLElement;
    if (!el || el === document.body) return { name: "", visible: false, inMain: false, inMenu: false };
    const style = getComputedStyle(el);
    const outline = style.outlineStyle !== "none" && Number.parseFloat(style.outlineWidth) > 0;
    const ring = style.boxShadow !== "none";
    const name = (
      el.getAttribute("aria-label") ||
      el.textContent ||
      (el as HTMLInputElement).labels?.[0]?.textContent ||
      ""
    ).trim();
    return {
      name,
      visible: outline || ring,
      inMain: Boolean(el.closest("#main")),
      inMenu: Boolean(el.closest("header, nav, #mobile-menu")),
    };
  });
}

/** Presses Tab until the focused control's name matches (at most 60 presses), checking its focus ring on the way. */
async function tabTo(page: Page, name: RegExp) {
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press("Tab");
    const now = await focused(page);
    if (now.name && !now.visible) throw new Error(`"${now.name}" has no visible focus indicator`);
    if (name.test(now.name)) return;
  }
  throw new Error(`Tab never reached ${name}`);
}

describe("keyboard only", () => {
  it("signs in, generates a code and verifies it in the widget", async () => {
    suite.server.clock.set(Date.now());
    const org = await createOrganisation(suite.server, { companyName: "Keys Ltd" });
    const user = await createUser(suite.server, { organisationId: org.id, fullName: "Kim Keys" });
    const page = await suite.newPage();
    await page.goto("/login");
    await page.getByRole("heading", { name: "Log In" }).waitFor();
    await tabTo(page, /^Email$/);
    await page.keyboard.type(user.email);
    await tabTo(page, /^Password$/);
    await page.keyboard.type(GOOD_PASSWORD);
    const before = suite.server.mail.to(user.email).length;
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Enter 2FA Code from Email" }).waitFor();
    // The code field has focus already.
    await page.keyboard.type(await suite.server.mail.signInCode(user.email, before));
    await page.keyboard.press("Enter");
    await page.waitForURL(pathIs("/dashboard"));
    await page.getByRole("button", { name: CODES_TEXT.generateButton }).waitFor();

    await tabTo(page, new RegExp(`^${CODES_TEXT.generateButton}$`));
    await page.keyboard.press("Enter");
    const words = page.locator(".identity__words");
    await expect.poll(async () => (await words.textContent()) ?? "").toMatch(/^[a-z]+ \/ [a-z]+ \/ [a-z]+$/);
    const typed = ((await words.textContent()) ?? "").replaceAll(" / ", " ");

    const customer = await suite.newPage();
    await customer.goto("/in-a-call");
    await customer.getByLabel(WIDGET_TEXT.label).waitFor();
    await tabTo(customer, new RegExp(`^${WIDGET_TEXT.label}$`));
    await customer.keyboard.type(typed);
    await customer.keyboard.press("Enter");
    await expect.poll(() => customer.getByRole("status").first().textContent()).toContain("Verified: Kim Keys");
  });

  it("deactivates an employee through the Confirm? second press", async () => {
    const org = await createOrganisation(suite.server, { companyName: "Confirm Ltd" });
    const boss = await createUser(suite.server, { organisationId: org.id, role: "superuser" });
    await createUser(suite.server, { organisationId: org.id, fullName: "Otto Outgoing" });
    const page = await suite.newPage();
    const before = suite.server.mail.to(boss.email).length;
    await page.goto("/login");
    await tabTo(page, /^Email$/);
    await page.keyboard.type(boss.email);
    await tabTo(page, /^Password$/);
    await page.keyboard.type(GOOD_PASSWORD);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Enter 2FA Code from Email" }).waitFor();
    await page.keyboard.type(await suite.server.mail.signInCode(boss.email, before));
    await page.keyboard.press("Enter");
    await page.waitForURL(pathIs("/employer-dashboard"));
    await page.getByRole("row", { name: /Otto Outgoing/ }).waitFor();

    await tabTo(page, /^Deactivate/);
    await page.keyboard.press("Enter");
    await page.getByRole("button", { name: /Confirm\?/ }).waitFor();
    await page.keyboard.press("Enter");
    await expect.poll(() => page.getByRole("row", { name: /Otto Outgoing/ }).count()).toBe(0);
  });

  it("the phone menu opens from the keyboard, keeps focus out of the page behind it, and closes on Escape", async () => {
    const page = await suite.newPage(PHONE);
    await page.goto("/");
    await page.getByRole("heading", { level: 1 }).first().waitFor();
    await tabTo(page, /^Open menu$/);
    await page.keyboard.press("Enter");
    await page.getByRole("button", { name: "Close menu" }).waitFor();
    const seen: string[] = [];
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press("Tab");
      const now = await focused(page);
      seen.push(`${now.name}|main=${now.inMain}|menu=${now.inMenu}|ring=${now.visible}`);
    }
    expect(seen.filter((s) => !s.endsWith("|main=false|menu=true|ring=true"))).toEqual([]);
    await page.keyboard.press("Escape");
    await page.getByRole("button", { name: "Open menu" }).waitFor();
    expect((await focused(page)).name).toBe("Open menu");
  });

  it.each([
    ["a phone", { width: 390, height: 844 }],
    ["a desktop", DESKTOP],
  ] as const)(
    "reaches every section of the employer dashboard from its section navigation on %s",
    async (_, viewport) => {
      const org = await createOrganisation(suite.server, { companyName: "Sections Ltd", websiteProved: true });
      const boss = await createUser(suite.server, { organisationId: org.id, role: "superuser" });
      const page = await suite.newPage(viewport);
      await openSignedIn(page, suite.server, boss, "/employer-dashboard");
      const nav = page.getByRole("navigation", { name: "Employer dashboard sections" });
      await nav.waitFor();
      for (const [name, route] of [
        ["Fraud and reports", "/employer-dashboard/fraud"],
        ["Sites and widget", "/employer-dashboard/sites"],
        ["Integrations", "/employer-dashboard/integrations"],
        ["Audit", "/employer-dashboard/audit"],
        ["People", "/employer-dashboard"],
      ] as const) {
        await tabTo(page, new RegExp(`^${name}$`));
        // The focused link is on the screen, inside its row (which scrolls sideways on a phone), not cut off.
        const shown = () =>
          page.evaluate(() => {
            const link = document.activeElement as HTMLElement;
            const row = link.closest("ul") as HTMLElement;
            const l = link.getBoundingClientRect();
            const r = row.getBoundingClientRect();
            const inside = l.left >= r.left - 1 && l.right <= r.right + 1 && l.left >= 0 && l.right <= innerWidth;
            return inside ? "shown" : `link ${l.left}–${l.right}, row ${r.left}–${r.right}, scrolled ${row.scrollLeft}`;
          });
        await expect.poll(shown, { message: `${name} is on the screen` }).toBe("shown");
        await page.keyboard.press("Enter");
        await page.waitForURL(pathIs(route));
        await expect.poll(() => nav.getByRole("link", { name, exact: true }).getAttribute("aria-current")).toBe("page");
        // The page itself never scrolls sideways.
        expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(
          0,
        );
      }
    },
  );
});
