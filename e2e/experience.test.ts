/**
 * The experience a stranger and each role gets on every screen: no serious or critical axe violation
 * at phone and desktop widths (dialogs and the widget included), no sideways scrolling at 320 px, no
 * console error for a signed-out visitor, and the "resend verification" and pending-list details.
 */
import { ADMIN_MESSAGES } from "@shared/admin";
import { MESSAGES } from "@shared/messages";
import { createOrganisation } from "@test/fixtures";
import { createUser, GOOD_PASSWORD, signIn } from "@test/helpers";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import {
  DESKTOP,
  openEmployerSection,
  PHONE,
  pathIs,
  seriousViolations,
  setUpBrowserSuite,
  signInThroughUi,
} from "./support";

const suite = setUpBrowserSuite();
const NARROW = { width: 320, height: 700 };
const PHONE_390 = { width: 390, height: 844 };

const PUBLIC_ROUTES = [
  "/",
  "/login",
  "/forgot-password",
  "/reset-password?token=abc",
  "/verify-email",
  "/select-signup",
  "/signup-employee",
  "/employer-access-code",
  "/in-a-call",
  "/about-us",
  "/contact",
  "/unauthorized",
];

/** How far the page scrolls sideways (0: not at all). */
const overflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** The page has settled: its main heading is there and nothing says it is still loading. */
async function settled(page: Page) {
  await page.getByRole("heading", { level: 1 }).first().waitFor();
  await page.waitForLoadState("load");
  await expect.poll(() => page.getByText(/^Loading/).count()).toBe(0);
}

/** Checks the page now at each width: axe at 390 and 1280 px, no sideways scrolling at 320 px. */
async function checkAtEveryWidth(page: Page, where: string) {
  const problems: string[] = [];
  for (const size of [PHONE_390, DESKTOP]) {
    await page.setViewportSize(size);
    for (const v of await seriousViolations(page)) problems.push(`${where} at ${size.width}px: ${v}`);
  }
  await page.setViewportSize(NARROW);
  const sideways = await overflow(page);
  if (sideways > 0) problems.push(`${where} at 320px scrolls sideways by ${sideways}px`);
  return problems;
}

let employerEmail = "";
let employeeEmail = "";
let adminEmail = "";
let waitingEmail = "";

beforeAll(async () => {
  const org = await createOrganisation(suite.server, { companyName: "Experience Ltd", websiteProved: true });
  employerEmail = (await createUser(suite.server, { organisationId: org.id, role: "superuser" })).email;
  employeeEmail = (await createUser(suite.server, { organisationId: org.id, fullName: "Eli Employee" })).email;
  adminEmail = (await createUser(suite.server, { role: "admin" })).email;
  const waitingOrg = await createOrganisation(suite.server, { companyName: "Waiting Ltd" });
  waitingEmail = (
    await createUser(suite.server, {
      organisationId: waitingOrg.id,
      role: "superuser",
      status: "pending",
      verified: false,
      fullName: "Wade Waiting",
    })
  ).email;
});

describe("every screen", () => {
  it("public pages: no serious axe violation, no sideways scrolling, no console error for a stranger", async () => {
    const page = await suite.newPage(PHONE_390);
    const errors: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(`${page.url()}: ${m.text()}`);
    });
    page.on("pageerror", (e) => errors.push(`${page.url()}: ${e.message}`));
    const problems: string[] = [];
    for (const route of PUBLIC_ROUTES) {
      await page.goto(route);
      await settled(page);
      problems.push(...(await checkAtEveryWidth(page, route)));
    }
    expect(problems).toEqual([]);
    expect(errors).toEqual([]);
  });

  // Every signed-in page of three roles at every width, with axe: about 50 s on a 2-core machine running
  // the rest of the suite, so it gets twice that rather than the project's 90 s.
  it("signed-in pages of each role, the sign-up dialogs and the widget", { timeout: 180_000 }, async () => {
    const problems: string[] = [];
    const visit = async (page: Page, route: string) => {
      await page.goto(route);
      await page.waitForURL(pathIs(route));
      await settled(page);
      problems.push(...(await checkAtEveryWidth(page, route)));
    };

    const employee = await suite.newPage();
    await signInThroughUi(employee, suite.server, employeeEmail, GOOD_PASSWORD, "/dashboard");
    await visit(employee, "/dashboard");
    await employee.setViewportSize(DESKTOP);
    await employee.getByRole("button", { name: "Generate Identity Code" }).click();
    await employee.locator(".identity__words").waitFor();
    problems.push(...(await checkAtEveryWidth(employee, "/dashboard with a code")));
    await visit(employee, "/download");
    await visit(employee, "/account");

    const employer = await suite.newPage();
    await signInThroughUi(employer, suite.server, employerEmail, GOOD_PASSWORD, "/employer-dashboard");
    await visit(employer, "/employer-dashboard");
    // Each of the dashboard's sections, reached through its section navigation.
    for (const [name, route] of [
      ["Fraud and reports", "/employer-dashboard/fraud"],
      ["Sites and widget", "/employer-dashboard/sites"],
      ["Integrations", "/employer-dashboard/integrations"],
      ["Audit", "/employer-dashboard/audit"],
      ["People", "/employer-dashboard"],
    ] as const) {
      await openEmployerSection(employer, name);
      await employer.waitForURL(pathIs(route));
      await settled(employer);
      problems.push(...(await checkAtEveryWidth(employer, route)));
    }

    const admin = await suite.newPage();
    await signInThroughUi(admin, suite.server, adminEmail, GOOD_PASSWORD, "/admin");
    await visit(admin, "/admin");

    // The mobile menu, open.
    await admin.setViewportSize(PHONE);
    await admin.getByRole("button", { name: "Open menu" }).click();
    problems.push(...(await seriousViolations(admin)).map((v) => `open menu: ${v}`));

    // The Terms dialog of the employee sign-up form (reached with a real access code).
    const { code } = (
      await (await signIn(suite.server, employerEmail)).post("/api/employer/generate-access-code", { maxUsers: 5 })
    ).json();
    const signup = await suite.newPage(PHONE_390);
    await signup.goto("/signup-employee");
    await signup.getByLabel("Access code").fill(code);
    await signup.getByRole("button", { name: "Continue" }).click();
    await signup.waitForURL(pathIs("/employee-create-account"));
    await settled(signup);
    problems.push(...(await checkAtEveryWidth(signup, "/employee-create-account")));
    await signup.getByRole("button", { name: "Terms & Conditions" }).click();
    await signup.getByRole("dialog").waitFor();
    problems.push(...(await seriousViolations(signup)).map((v) => `terms dialog: ${v}`));

    // The widget after a failed look-up, with its report form open.
    const widget = await suite.newPage(PHONE_390);
    await widget.goto("/in-a-call");
    await widget.getByLabel("The caller's three words").fill("apple river stone");
    await widget.getByLabel("The caller's three words").press("Enter");
    await widget.getByRole("button", { name: "Report this call" }).click();
    await widget.getByLabel("The number that called you").waitFor();
    problems.push(...(await checkAtEveryWidth(widget, "/in-a-call widget with the report form")));

    expect(problems).toEqual([]);
  });
});

describe("details a user expects", () => {
  it("an unverified account is offered 'Resend verification e-mail' at sign-in, and gets the link", async () => {
    const user = await createUser(suite.server, { verified: false });
    const page = await suite.newPage(PHONE);
    await page.goto("/login");
    await page.getByLabel("Email").fill(user.email);
    await page.getByLabel("Password").fill(GOOD_PASSWORD);
    await page.getByRole("button", { name: "Log In" }).click();
    await page.getByText(MESSAGES.emailNotVerified).waitFor();
    const before = suite.server.mail.to(user.email).length;
    await page.getByRole("button", { name: MESSAGES.resendVerification }).click();
    await page.getByText(MESSAGES.verificationResent).waitFor();
    await suite.server.mail.waitFor(user.email, (m) => m.text.includes("/verify-email?"), before);
  });

  it("the admin's pending list shows an employer whose e-mail is not verified, marked, without Activate", async () => {
    const page = await suite.newPage();
    await signInThroughUi(page, suite.server, adminEmail, GOOD_PASSWORD, "/admin");
    const row = page.getByRole("row", { name: /Wade Waiting/ });
    await row.getByText(ADMIN_MESSAGES.emailNotVerifiedTag).waitFor();
    expect(await row.getByRole("button", { name: /Activate/ }).count()).toBe(0);
    await row.getByText(ADMIN_MESSAGES.activateAfterVerification).waitFor();
    void waitingEmail;
  });
});
