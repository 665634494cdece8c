/** Data protection on the screens: "Export my data" on /account, and the admin's "Erase" with its "Confirm?". */
import { readFile } from "node:fs/promises";
import { ERROR_CODES } from "@shared/error-codes";
import { createEmployer } from "@test/fixtures";
import { Browser, createUser } from "@test/helpers";
import { describe, expect, it } from "vitest";
import { DESKTOP, openSignedIn, setUpBrowserSuite } from "./support";

const suite = setUpBrowserSuite();

describe("data protection", () => {
  it("downloads the signed-in person's data from /account", async () => {
    const { user } = await createEmployer(suite.server, { fullName: "Erin Export" });
    const page = await suite.newPage(DESKTOP);
    await openSignedIn(page, suite.server, user, "/employer-dashboard");
    await page.goto("/account");
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Export my data" }).click(),
    ]);
    const data = JSON.parse(await readFile((await download.path()) as string, "utf8"));
    expect(data.profile).toMatchObject({ email: user.email, fullName: "Erin Export" });
  });

  it("lets an admin erase an employer with a second press, after which the account is gone from the list", async () => {
    const { user: employer } = await createEmployer(suite.server, { fullName: "Ezra Erasable" });
    const admin = await createUser(suite.server, { role: "admin" });
    const page = await suite.newPage(DESKTOP);
    await openSignedIn(page, suite.server, admin, "/admin");
    const active = page.getByRole("region", { name: "Active employers", exact: true });
    await active.getByLabel("Search active employers").fill("Ezra");
    const erase = active.getByRole("button", { name: "Erase Ezra Erasable" });
    await erase.click();
    await active.getByRole("button", { name: /^Confirm\?/ }).click();
    await active.getByText('No active employers match "Ezra".').waitFor();
    const browser = new Browser(suite.server.app, "127.0.0.1", suite.server.config.publicOrigin);
    const login = await browser.post("/api/auth/login", { email: employer.email, password: employer.password });
    expect(login.json()).toMatchObject({ code: ERROR_CODES.invalidCredentials });
  });
});
