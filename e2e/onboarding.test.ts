import { randomBytes } from "node:crypto";
import { MESSAGES } from "@shared/messages";
import { createUser, GOOD_PASSWORD } from "@test/helpers";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { PHONE, pathIs, setUpBrowserSuite, signInThroughUi } from "./support";

const suite = setUpBrowserSuite();
const { newPage } = suite;

/** The path and query of an e-mailed link, to open on the test server. */
const local = (url: URL) => `${url.pathname}${url.search}`;

/** The Terms / Privacy dialog behaves as a modal: labelled, focus inside, Escape closes, focus back on the opener. */
async function checkLegalDialog(page: Page, opener: string, title: string) {
  const button = page.getByRole("button", { name: opener, exact: true });
  await button.click();
  const dialog = page.getByRole("dialog", { name: title });
  await dialog.waitFor();
  expect(await dialog.getAttribute("aria-modal")).toBe("true");
  expect(await dialog.evaluate((el) => el.contains(document.activeElement))).toBe(true);
  // Tabbing around stays in the dialog (the page behind is inert).
  for (let i = 0; i < 4; i++) {
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => Boolean(document.activeElement?.closest("dialog")))).toBe(true);
  }
  await page.keyboard.press("Escape");
  await dialog.waitFor({ state: "hidden" });
  expect(await button.evaluate((el) => el === document.activeElement)).toBe(true);
}

/**
 * Ticks the terms box and creates the account, waits for "follow the e-mailed link", then opens
 * the verification link from the mail and waits for Log In.
 */
async function agreeCreateAndVerify(page: Page, email: string) {
  await page.getByLabel("I am 18 or over and agree to the Terms & Conditions and Privacy Policy").check();
  await page.getByRole("button", { name: "Create account" }).click();
  await page.getByText(MESSAGES.followEmailLink).waitFor();
  const verify = await suite.server.mail.link(email, "/verify-email");
  await page.goto(local(verify));
  await page.waitForURL(pathIs("/login"));
}

describe("onboarding", () => {
  it("takes an employer from invitation to dashboard and an employee from access code to /dashboard", async () => {
    const domain = `acme-${randomBytes(4).toString("hex")}.test`;
    const employerEmail = `boss@${domain}`;
    const employeeEmail = `sam@${domain}`;

    // The platform admin invites the employer.
    const admin = await createUser(suite.server, { role: "admin", fullName: "Ada Admin" });
    const adminPage = await newPage();
    await signInThroughUi(adminPage, suite.server, admin.email, admin.password, "/admin");
    await adminPage.getByLabel("Employer email").fill(`  ${employerEmail.toUpperCase()} `);
    await adminPage.getByRole("button", { name: "Generate access code" }).click();
    await adminPage.getByText("Access Code:").waitFor();
    const shownCode = ((await adminPage.locator(".copyable__value").first().textContent()) ?? "").trim();
    expect(shownCode.length).toBeGreaterThan(4);

    // The employer follows the e-mailed link: the code is prefilled.
    const invitation = await suite.server.mail.link(employerEmail, "/employer-access-code");
    expect(invitation.searchParams.get("code")).toBe(shownCode);
    const employer = await newPage(PHONE);
    await employer.goto(local(invitation));
    await employer.getByText("invite-only").waitFor();
    expect(await employer.getByLabel("Access code").inputValue()).toBe(shownCode);
    await employer.getByRole("button", { name: "Continue" }).click();
    await employer.waitForURL(pathIs("/signup-employer"));

    const email = employer.getByLabel("Email", { exact: true });
    expect(await email.inputValue()).toBe(employerEmail);
    expect(await email.getAttribute("readonly")).not.toBeNull();
    await employer.getByLabel("Full name").fill("Bea Boss");
    await employer.getByLabel("Company name").fill("Acme Ltd");
    await employer.getByLabel("Website").fill(`www.${domain}`);
    await employer.getByLabel("Password", { exact: true }).fill(GOOD_PASSWORD);
    await employer.getByLabel("Confirm password").fill(`${GOOD_PASSWORD}x`);
    await employer.getByRole("button", { name: "Create account" }).click();
    await employer.getByRole("alert").filter({ hasText: MESSAGES.passwordsDoNotMatch }).waitFor();
    await employer.getByLabel("Confirm password").fill(GOOD_PASSWORD);
    await employer.getByRole("button", { name: "Create account" }).click();
    await employer.getByRole("alert").filter({ hasText: MESSAGES.mustAgreeToTerms }).waitFor();

    await checkLegalDialog(employer, "Terms & Conditions", "Terms & Conditions");
    await checkLegalDialog(employer, "Privacy Policy", "Privacy Policy");
    // Once created and verified, Log In shows the pending notice; signing in is refused until activation.
    await agreeCreateAndVerify(employer, employerEmail);
    await employer.getByText(MESSAGES.emailVerifiedPending).waitFor();
    expect(await employer.getByLabel("Email").inputValue()).toBe(employerEmail);
    await employer.getByLabel("Password").fill(GOOD_PASSWORD);
    await employer.getByRole("button", { name: "Log In" }).click();
    await employer.getByRole("alert").filter({ hasText: MESSAGES.accountPending }).waitFor();

    // The admin activates the account: check mark banner, the row leaves, the active list has it.
    await adminPage.reload();
    const pending = adminPage.getByRole("region", { name: "Pending employer accounts", exact: true });
    await pending.getByRole("button", { name: "Activate Bea Boss" }).click();
    await adminPage.getByText(MESSAGES.employerActivated).waitFor();
    await pending.getByRole("row", { name: /Bea Boss/ }).waitFor({ state: "detached" });
    await adminPage
      .getByRole("region", { name: "Active employers", exact: true })
      .getByRole("row", { name: /Bea Boss/ })
      .waitFor();
    await adminPage.getByText(MESSAGES.employerActivated).waitFor({ state: "detached", timeout: 6000 });

    // The employer signs in, lands on the dashboard and creates an employee code.
    await signInThroughUi(employer, suite.server, employerEmail, GOOD_PASSWORD, "/employer-dashboard");
    await employer.getByText("Acme Ltd").waitFor();
    await employer.getByText(MESSAGES.noAccessCodeData).waitFor();
    await employer.getByLabel("Required users").fill("3");
    await employer.getByRole("button", { name: "Generate Access Code" }).click();
    await employer.getByText("Access Code:").waitFor();
    // The dashboard shows other copyable values too (the SSO redirect URI, the SCIM base URL).
    const accessCode = employer.locator(".copyable__text", { hasText: "Access Code:" }).locator(".copyable__value");
    const employeeCode = ((await accessCode.textContent()) ?? "").trim();
    await employer.getByText("Available").waitFor();

    // The employee signs up with it, as a new visitor would.
    const employee = await newPage(PHONE);
    await employee.goto("/select-signup");
    await employee.getByRole("link", { name: "I am an employee with an access code" }).click();
    await employee.waitForURL(pathIs("/signup-employee"));
    await employee.getByLabel("Access code").fill("WRONG-CODE");
    await employee.getByRole("button", { name: "Continue" }).click();
    await employee.getByRole("alert").waitFor();
    await employee.getByLabel("Access code").fill(employeeCode);
    await employee.getByRole("button", { name: "Continue" }).click();
    await employee.waitForURL(pathIs("/employee-create-account"));

    await employee.getByText(`@${domain}`, { exact: true }).waitFor();
    await employee.getByLabel(`Work email (your address at ${domain})`).fill("sam");
    await employee.getByLabel("Full name").fill("Sam Staff");
    expect(await employee.getByLabel("Website").getAttribute("readonly")).not.toBeNull();
    await employee.getByLabel("Password", { exact: true }).fill("weak");
    await employee.getByLabel("Confirm password").fill("weak");
    await employee.getByRole("button", { name: "Create account" }).click();
    await employee.getByRole("alert").filter({ hasText: MESSAGES.employeePasswordRules }).waitFor();
    await employee.getByLabel("Password", { exact: true }).fill(GOOD_PASSWORD);
    await employee.getByLabel("Confirm password").fill(GOOD_PASSWORD);
    await checkLegalDialog(employee, "Terms & Conditions", "Terms & Conditions");
    await agreeCreateAndVerify(employee, employeeEmail);
    await employee.getByText(MESSAGES.emailVerified).waitFor();
    await signInThroughUi(employee, suite.server, employeeEmail, GOOD_PASSWORD, "/dashboard");

    // The employer sees the new user in the table.
    await employer.reload();
    await employer.getByRole("row", { name: /Sam Staff/ }).waitFor();
  });

  it("sends visitors without a valid code back to the code pages", async () => {
    const page = await newPage();
    await page.goto("/signup-employer");
    await page.waitForURL(pathIs("/employer-access-code"));
    await page.goto("/employee-create-account");
    await page.waitForURL(pathIs("/signup-employee"));
    await page.goto("/employer-access-code");
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByRole("alert").waitFor();
    await page.getByLabel("Access code").fill("NOT-A-REAL-CODE");
    await page.getByRole("button", { name: "Continue" }).click();
    const alert = page.getByRole("alert");
    await alert.waitFor();
    expect(((await alert.textContent()) ?? "").trim()).not.toBe("");
    const describedBy = await page.getByLabel("Access code").getAttribute("aria-describedby");
    expect(describedBy).toContain(await alert.getAttribute("id"));
  });
});
