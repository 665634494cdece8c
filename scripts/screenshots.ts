/**
 * Screenshots of the main screens, from the real app, for the README: `npx tsx scripts/screenshots.ts`
 * (after `npm run build`). Starts the built app in-process on an in-memory database with captured mail,
 * seeds an organisation (employee, employer, admin, a reported call), signs in through the real forms
 * and writes docs/screenshots/<screen>-<phone|desktop>.png with the machine's Chromium.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { launchChromium, signInThroughUi } from "@test/chromium";
import { createOrganisation } from "@test/fixtures";
import { buildTestApp, createUser, GOOD_PASSWORD, type TestApp } from "@test/helpers";
import type { Browser, Page } from "playwright-core";

const root = fileURLToPath(new URL("..", import.meta.url));
const out = path.join(root, "docs/screenshots");
const SIZES = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } } as const;

async function shoot(browser: Browser, t: TestApp, name: string, visit: (page: Page) => Promise<void>) {
  for (const [size, viewport] of Object.entries(SIZES)) {
    const context = await browser.newContext({ baseURL: t.url, viewport, deviceScaleFactor: 1 });
    const page = await context.newPage();
    await visit(page);
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(out, `${name}-${size}.png`) });
    await context.close();
    console.log(`docs/screenshots/${name}-${size}.png`);
  }
}

mkdirSync(out, { recursive: true });
// The browser reaches the app at its PUBLIC_URL's origin (the CSRF Origin check wants that).
const app = await buildTestApp({ env: { PORT: "43117", PUBLIC_URL: "http://localhost:43117" } });
await app.app.listen({ port: 43117, host: "127.0.0.1" });
const server = { ...app, url: "http://localhost:43117" };

const org = await createOrganisation(server, {
  companyName: "Globex Bank",
  domain: "globex.example",
  website: "https://www.globex.example",
});
const employee = await createUser(server, { organisationId: org.id, fullName: "Dana Scully" });
const boss = await createUser(server, { organisationId: org.id, role: "superuser", fullName: "Hank Scorpio" });
const admin = await createUser(server, { role: "admin", fullName: "Ada Admin" });
await server.app.inject({
  method: "POST",
  url: "/api/reports",
  headers: { "content-type": "application/json", origin: "https://www.globex.example" },
  payload: JSON.stringify({ callerNumber: "+44 20 7946 0123", claimedName: "Globex fraud team", note: "my card PIN" }),
});

const browser = await launchChromium();
try {
  await shoot(browser, server, "home", async (page) => {
    await page.goto("/");
  });
  await shoot(browser, server, "login", async (page) => {
    await page.goto("/login");
  });
  await shoot(browser, server, "in-a-call", async (page) => {
    await page.goto("/in-a-call");
    const input = page.getByLabel("The caller's three words");
    await input.fill("apple river stone");
    await input.press("Enter");
    await page.getByRole("button", { name: "Report this call" }).scrollIntoViewIfNeeded();
  });
  await shoot(browser, server, "dashboard", async (page) => {
    await signInThroughUi(page, server, employee.email, GOOD_PASSWORD);
    await page.goto("/dashboard");
    await page.getByRole("button", { name: "Generate Identity Code" }).click();
    await page.locator(".identity__words").waitFor();
  });
  await shoot(browser, server, "employer-dashboard", async (page) => {
    await signInThroughUi(page, server, boss.email, GOOD_PASSWORD);
    await page.goto("/employer-dashboard");
    // The section with the reported call, through the dashboard's section navigation.
    await page
      .getByRole("navigation", { name: "Employer dashboard sections" })
      .getByRole("link", { name: "Fraud and reports" })
      .click();
    await page
      .getByRole("row", { name: /7946 0123/ })
      .first()
      .waitFor();
  });
  await shoot(browser, server, "admin", async (page) => {
    await signInThroughUi(page, server, admin.email, GOOD_PASSWORD);
    await page.goto("/admin");
    await page.getByRole("heading", { name: "Admin dashboard" }).waitFor();
  });
} finally {
  await browser.close();
  await server.close();
}
