import { randomBytes } from "node:crypto";
import { organisations, users } from "@server/db/schema";
import { hashPassword } from "@server/lib/passwords";
import { MESSAGES } from "@shared/messages";
import { createUser, GOOD_PASSWORD } from "@test/helpers";
import { eq } from "drizzle-orm";
import type { Locator } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { openEmployerSection, openSignedIn, PHONE, setUpBrowserSuite } from "./support";

const suite = setUpBrowserSuite();
const { newPage } = suite;
let passwordHash: string;

beforeAll(async () => {
  passwordHash = await hashPassword(GOOD_PASSWORD);
});

const two = (n: number) => String(n).padStart(2, "0");

/** An organisation row for an employer at `domain`. */
async function createOrganisation(domain: string, companyName: string) {
  const [organisation] = await suite.server.database.db
    .insert(organisations)
    .values({
      companyName,
      domain,
      website: `https://www.${domain}`,
      websiteHost: `www.${domain}`,
      createdAt: suite.server.clock.now(),
    })
    .returning();
  if (!organisation) throw new Error("organisation not created");
  return organisation;
}

/** `count` active users straight into the database (one password hash for all, to keep seeding fast). */
async function seedUsers(
  rows: Array<{ email: string; fullName: string; role: "superuser" | "client"; organisationId: number }>,
) {
  const now = suite.server.clock.now();
  await suite.server.database.db.insert(users).values(
    rows.map((row) => ({
      ...row,
      passwordHash,
      status: "active" as const,
      emailVerifiedAt: now,
      createdAt: now,
    })),
  );
}

/** 25 active employers, each with its own organisation; returns their domains by number. */
async function seedEmployers(tag: string): Promise<string[]> {
  const domains: string[] = [];
  for (let i = 1; i <= 25; i++) {
    const domain = `firm${two(i)}-${tag}.test`;
    const organisation = await createOrganisation(domain, `Firm ${two(i)} Ltd`);
    await seedUsers([
      {
        email: `owner@${domain}`,
        fullName: `Owner ${two(i)} ${tag}`,
        role: "superuser",
        organisationId: organisation.id,
      },
    ]);
    domains.push(domain);
  }
  return domains;
}

const pageStatus = (region: Locator, text: string) => region.getByText(text, { exact: true }).waitFor();
const bodyRows = (region: Locator) => region.locator("tbody tr");

describe("administration", () => {
  it("lets the admin search, page and deactivate employers, and deactivate a whole domain", async () => {
    const tag = randomBytes(3).toString("hex");
    const domains = await seedEmployers(tag);

    // The employer about to be deactivated has an open session in another browser.
    const target = await createOrganisation(`target-${tag}.test`, "Target Ltd");
    const targetUser = await createUser(suite.server, {
      email: `chief@target-${tag}.test`,
      role: "superuser",
      fullName: `Tara Target ${tag}`,
      organisationId: target.id,
    });
    const targetPage = await newPage();
    await openSignedIn(targetPage, suite.server, targetUser, "/employer-dashboard");

    const admin = await createUser(suite.server, { role: "admin" });
    const page = await newPage();
    await openSignedIn(page, suite.server, admin, "/admin");
    const active = page.getByRole("region", { name: "Active employers", exact: true });

    // 26 active employers: ten a page.
    await pageStatus(active, "Page 1 of 3");
    expect(await bodyRows(active).count()).toBe(10);
    await active.getByRole("button", { name: "Next" }).click();
    await pageStatus(active, "Page 2 of 3");
    await active.getByRole("button", { name: "Next" }).click();
    await pageStatus(active, "Page 3 of 3");
    await expect.poll(() => bodyRows(active).count()).toBe(6);
    expect(await active.getByRole("button", { name: "Next" }).isDisabled()).toBe(true);
    await active.getByRole("button", { name: "Prev" }).click();
    await pageStatus(active, "Page 2 of 3");

    // Search matches name, e-mail or website and goes back to page 1.
    await active.getByLabel("Search active employers").fill(`firm07-${tag}`);
    await pageStatus(active, "Page 1 of 1");
    await expect.poll(() => bodyRows(active).count()).toBe(1);
    await active.getByRole("row", { name: new RegExp(`Owner 07 ${tag}`) }).waitFor();
    await active.getByLabel("Search active employers").fill(`Tara Target ${tag}`);
    await active.getByRole("row", { name: new RegExp(`Tara Target ${tag}`) }).waitFor();
    await expect.poll(() => bodyRows(active).count()).toBe(1);

    // Deactivating the employer ends its open session at once.
    await active.getByRole("button", { name: `Deactivate Tara Target ${tag}` }).click();
    await active.getByText(`No active employers match "Tara Target ${tag}".`).waitFor();
    expect((await targetPage.request.get("/api/auth/whoami")).status()).toBe(401);
    await targetPage.reload();
    await targetPage.waitForURL((url) => url.pathname !== "/employer-dashboard");

    // The audit log shows the deactivation, and filters feed the CSV export link.
    const audit = page.getByRole("region", { name: "Audit log", exact: true });
    await audit.getByLabel("Action").fill("admin.deactivate-employer");
    await audit.getByRole("button", { name: "Apply filters" }).click();
    await audit
      .getByRole("row", { name: /admin\.deactivate-employer/ })
      .first()
      .waitFor();
    expect(await audit.getByRole("link", { name: "Export CSV" }).getAttribute("href")).toBe(
      "/api/admin/audit.csv?action=admin.deactivate-employer",
    );

    // Deactivating a domain asks first, then reports how many accounts it deactivated.
    await active.getByLabel("Search active employers").fill("");
    await pageStatus(active, "Page 1 of 3");
    const client = await createUser(suite.server, { email: `staff@${domains[0]}`, role: "client" });
    const domainForm = page.getByRole("region", { name: "Deactivate Users by Email Domain" });
    await domainForm.getByLabel("Email domain").fill(`  ${domains[0]?.toUpperCase()} `);
    let question = "";
    page.once("dialog", (dialog) => {
      question = dialog.message();
      void dialog.accept();
    });
    await domainForm.getByRole("button", { name: "Deactivate domain" }).click();
    await domainForm.getByText(/2 accounts/).waitFor();
    expect(question).toBe(
      `Are you sure you want to deactivate ALL users with email domain "${domains[0]}"? This cannot be undone.`,
    );
    // 24 left: still three pages, the last with four rows.
    await active.getByRole("button", { name: "Next" }).click();
    await active.getByRole("button", { name: "Next" }).click();
    await pageStatus(active, "Page 3 of 3");
    await expect.poll(() => bodyRows(active).count()).toBe(4);
    const [clientRow] = await suite.server.database.db.select().from(users).where(eq(users.id, client.id));
    expect(clientRow?.status).toBe("deactivated");

    // Dismissing the question changes nothing.
    await domainForm.getByLabel("Email domain").fill(domains[1] ?? "");
    page.once("dialog", (dialog) => void dialog.dismiss());
    await domainForm.getByRole("button", { name: "Deactivate domain" }).click();
    await active.getByRole("button", { name: "Prev" }).click();
    await active.getByRole("button", { name: "Prev" }).click();
    await active.getByRole("row", { name: new RegExp(`Owner 02 ${tag}`) }).waitFor();
  });

  it("lets an employer deactivate an employee only through the 5-second Confirm? window", async () => {
    const tag = randomBytes(3).toString("hex");
    const domain = `staffco-${tag}.test`;
    const organisation = await createOrganisation(domain, "Staff Co");
    const boss = await createUser(suite.server, {
      email: `boss@${domain}`,
      role: "superuser",
      fullName: "Bo Boss",
      organisationId: organisation.id,
    });
    await seedUsers(
      Array.from({ length: 25 }, (_, i) => ({
        email: `worker${two(i + 1)}@${domain}`,
        fullName: `Worker ${two(i + 1)}`,
        role: "client" as const,
        organisationId: organisation.id,
      })),
    );

    const page = await newPage(PHONE);
    await page.clock.install();
    const deactivations: string[] = [];
    page.on("request", (request) => {
      if (request.url().includes("/api/employer/deactivate-employee/")) deactivations.push(request.url());
    });
    await openSignedIn(page, suite.server, boss, "/employer-dashboard");
    const usersRegion = page.getByRole("region", { name: "Active users", exact: true });

    await pageStatus(usersRegion, "Page 1 of 3");
    expect(await bodyRows(usersRegion).count()).toBe(10);
    await usersRegion.getByRole("button", { name: "Next" }).click();
    await usersRegion.getByRole("button", { name: "Next" }).click();
    await pageStatus(usersRegion, "Page 3 of 3");
    await expect.poll(() => bodyRows(usersRegion).count()).toBe(5);

    // Search by e-mail.
    await usersRegion.getByLabel("Search by email").fill("worker01@");
    await pageStatus(usersRegion, "Page 1 of 1");
    await expect.poll(() => bodyRows(usersRegion).count()).toBe(1);

    // First press arms the button; a second one within five seconds deactivates.
    const deactivate = usersRegion.getByRole("button", { name: "Deactivate Worker 01" });
    await deactivate.click();
    const confirm = usersRegion.getByRole("button", { name: /^Confirm\?/ });
    await confirm.waitFor();
    await page.mouse.move(0, 0);
    // Yellow with dark text (11:1), once the colour transition has finished.
    await expect
      .poll(() =>
        confirm.evaluate((el) => {
          const style = getComputedStyle(el);
          return { background: style.backgroundColor, color: style.color };
        }),
      )
      .toEqual({ background: "rgb(252, 211, 77)", color: "rgb(23, 32, 47)" });
    await page.clock.fastForward(2000);
    await confirm.click();
    await usersRegion.getByText('No active users match "worker01@".').waitFor();
    expect(deactivations).toHaveLength(1);

    // A second press after the window has closed only arms the button again.
    await usersRegion.getByLabel("Search by email").fill("worker02@");
    await page.clock.fastForward(500);
    const second = usersRegion.getByRole("button", { name: "Deactivate Worker 02" });
    await second.click();
    await usersRegion.getByRole("button", { name: /^Confirm\?/ }).waitFor();
    await page.clock.fastForward(5100);
    await second.waitFor();
    await second.click();
    await usersRegion.getByRole("button", { name: /^Confirm\?/ }).waitFor();
    expect(deactivations).toHaveLength(1);
    await page.clock.fastForward(5100);
    await second.waitFor();
    expect(deactivations).toHaveLength(1);

    // 24 left.
    await usersRegion.getByLabel("Search by email").fill("");
    await page.clock.fastForward(500);
    await pageStatus(usersRegion, "Page 1 of 3");
    await usersRegion.getByText("Active users (24)").waitFor();

    // The organisation's audit events (their own section) record the deactivation.
    await openEmployerSection(page, "Audit");
    await page
      .getByRole("region", { name: "Audit events", exact: true })
      .getByRole("row", { name: /employer\.deactivate-employee/ })
      .first()
      .waitFor();
    await openEmployerSection(page, "People");
    await page.getByText(MESSAGES.noAccessCodeData).waitFor();
  });

  it("shows the specification's texts when admin and employer actions fail", async () => {
    const tag = randomBytes(3).toString("hex");
    const organisation = await createOrganisation(`errors-${tag}.test`, "Errors Ltd");
    const boss = await createUser(suite.server, {
      email: `boss@errors-${tag}.test`,
      role: "superuser",
      fullName: `Err Boss ${tag}`,
      organisationId: organisation.id,
    });
    await seedUsers([
      { email: `one@errors-${tag}.test`, fullName: "Only Worker", role: "client", organisationId: organisation.id },
    ]);
    await seedUsers([
      {
        email: `pending@late-${tag}.test`,
        fullName: `Late Pending ${tag}`,
        role: "superuser",
        organisationId: (await createOrganisation(`late-${tag}.test`, "Late Ltd")).id,
      },
    ]);
    await suite.server.database.db
      .update(users)
      .set({ status: "pending" })
      .where(eq(users.email, `pending@late-${tag}.test`));

    const dialogs: string[] = [];
    const admin = await createUser(suite.server, { role: "admin" });
    const page = await newPage();
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.accept();
    });
    await openSignedIn(page, suite.server, admin, "/admin");

    // Server refusals come through with the server's message.
    await page.route("**/api/admin/activate-account/*", (route) =>
      route.fulfill({ status: 404, contentType: "application/json", body: JSON.stringify({ message: "Gone." }) }),
    );
    await page.getByRole("button", { name: `Activate Late Pending ${tag}` }).click();
    await expect.poll(() => dialogs).toEqual([`${MESSAGES.activateFailedPrefix}Gone.`]);
    await page.route("**/api/admin/deactivate-employer/*", (route) =>
      route.fulfill({ status: 500, contentType: "application/json", body: "{}" }),
    );
    const active = page.getByRole("region", { name: "Active employers", exact: true });
    await active.getByLabel("Search active employers").fill(`Err Boss ${tag}`);
    await active.getByRole("button", { name: `Deactivate Err Boss ${tag}` }).click();
    await expect.poll(() => dialogs.length).toBe(2);
    expect(dialogs[1]?.startsWith(MESSAGES.deactivateEmployerFailedPrefix)).toBe(true);

    // Invitations: a bad address is caught before sending; a webmail one is refused.
    const invite = page.getByRole("region", { name: "Generate employer access code" });
    await invite.getByLabel("Employer email").fill("not-an-email");
    await invite.getByRole("button", { name: "Generate access code" }).click();
    await invite.getByRole("alert").filter({ hasText: "Enter a valid email address." }).waitFor();
    await page.route("**/api/admin/generate-employer-access-code", (route) =>
      route.fulfill({ status: 500, contentType: "application/json", body: "{}" }),
    );
    await invite.getByLabel("Employer email").fill(`new@fresh-${tag}.test`);
    await invite.getByRole("button", { name: "Generate access code" }).click();
    await invite.getByRole("alert").filter({ hasText: MESSAGES.accessCodeFailed }).waitFor();

    // Domain deactivation: blank is refused here; a failed call falls back to the spec's text.
    const domainForm = page.getByRole("region", { name: "Deactivate Users by Email Domain" });
    await domainForm.getByRole("button", { name: "Deactivate domain" }).click();
    await domainForm.getByRole("alert").waitFor();
    await page.route("**/api/admin/deactivate-by-domain", (route) =>
      route.fulfill({ status: 500, contentType: "application/json", body: "{}" }),
    );
    await domainForm.getByLabel("Email domain").fill(`nobody-${tag}.test`);
    await domainForm.getByRole("button", { name: "Deactivate domain" }).click();
    await domainForm.getByRole("alert").filter({ hasText: MESSAGES.deactivationFailed }).waitFor();

    // A failed load leaves both lists empty and says so.
    await page.route("**/api/admin/stats", (route) => route.fulfill({ status: 500, body: "" }));
    await page.reload();
    await page.getByText(/Could not load the dashboard data/).waitFor();
    await page.getByText("Could not load the pending accounts.").waitFor();
    await page.getByText("Could not load the active employers.").waitFor();

    // The employer: user limit check, one active code at a time, failed deactivation, failed load.
    const employer = await newPage();
    const employerDialogs: string[] = [];
    employer.on("dialog", (dialog) => {
      employerDialogs.push(dialog.message());
      void dialog.accept();
    });
    await openSignedIn(employer, suite.server, boss, "/employer-dashboard");
    await employer.getByLabel("Required users").fill("0");
    await employer.getByRole("button", { name: "Generate Access Code" }).click();
    await expect.poll(() => employerDialogs).toEqual([MESSAGES.invalidUserLimit]);
    await employer.getByLabel("Required users").fill("2");
    await employer.getByRole("button", { name: "Generate Access Code" }).click();
    await employer.getByText("Access Code:").waitFor();
    await employer.getByRole("button", { name: "Generate Access Code" }).click();
    await employer.getByRole("alert").filter({ hasText: MESSAGES.activeCodeExists }).waitFor();

    await employer.route("**/api/employer/deactivate-employee/*", (route) =>
      route.fulfill({ status: 500, contentType: "application/json", body: "{}" }),
    );
    await employer.getByRole("button", { name: "Deactivate Only Worker" }).click();
    await employer.getByRole("button", { name: /^Confirm\?/ }).click();
    await expect.poll(() => employerDialogs.length).toBe(2);
    expect(employerDialogs[1]).toBe(MESSAGES.deactivateEmployeeFailed);

    await employer.route("**/api/employer/me", (route) => route.fulfill({ status: 500, body: "" }));
    await employer.reload();
    await employer.getByText(MESSAGES.employerDashboardLoadFailed).waitFor();
  });
});
