/**
 * Closing the loop, end to end: the employee's /dashboard shows the customer's check the moment a
 * widget on the organisation's own site (a second origin) verifies the code; a customer whose check
 * fails reports the call from that widget, and the employer dashboard lists it.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { CODES_TEXT, plainSnippet, WIDGET_TEXT } from "@shared/codes";
import { REPORT_FIELDS, REPORT_FORM_TEXT, REPORTS_TEXT } from "@shared/reports";
import { createOrganisation } from "@test/fixtures";
import { createUser } from "@test/helpers";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openEmployerSection, openSignedIn, PHONE, setUpBrowserSuite } from "./support";

const suite = setUpBrowserSuite();
let site: Server;
let siteUrl: string;

beforeAll(async () => {
  // The organisation's website: a page with the widget's plain snippet.
  site = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Org support</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><h1>Support</h1>${plainSnippet(suite.server.url)}</body></html>`);
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => site?.close(resolve));
});

/** An organisation whose proved website is the site, reached as `host` (each test its own: a host two organisations share routes reports to the admins). */
async function organisation(companyName: string, host: "127.0.0.1" | "localhost") {
  const website = siteUrl.replace("127.0.0.1", host);
  return { org: await createOrganisation(suite.server, { website, companyName, websiteProved: true }), website };
}

async function verifyInWidget(page: Page, words: string) {
  const input = page.getByLabel(WIDGET_TEXT.label);
  await input.fill(words);
  await input.press("Enter");
}

describe("closing the loop", () => {
  it("/dashboard shows 'Verified by the customer' when the widget on the organisation's site verifies the code", async () => {
    suite.server.clock.set(Date.now());
    const { org, website } = await organisation("Loop Ltd", "127.0.0.1");
    const user = await createUser(suite.server, { organisationId: org.id, fullName: "Lena Loop" });
    const dashboard = await suite.newPage(PHONE);
    await dashboard.clock.install();
    await openSignedIn(dashboard, suite.server, user, "/dashboard");
    await dashboard.getByRole("button", { name: CODES_TEXT.generateButton }).click();
    const words = dashboard.locator(".identity__words");
    await expect.poll(async () => (await words.textContent()) ?? "").toMatch(/^[a-z]+ \/ [a-z]+ \/ [a-z]+$/);
    const check = dashboard.locator(".customer-check");
    await expect.poll(() => check.textContent()).toBe(CODES_TEXT.waitingForCustomer);
    expect(await check.getAttribute("role")).toBe("status");

    suite.server.clock.set(Date.now());
    const customer = await suite.newPage();
    await customer.goto(website);
    await verifyInWidget(customer, ((await words.textContent()) ?? "").replaceAll(" / ", " "));
    await expect.poll(() => customer.getByRole("status").first().textContent()).toContain("Verified: Lena Loop");

    await expect
      .poll(() => check.textContent(), { timeout: 5000 })
      .toMatch(/^Verified by the customer at \d\d:\d\d:\d\d on 127\.0\.0\.1$/);
    // The countdown keeps counting beside the verified notice, as the specification has it (issue 34).
    expect(await dashboard.getByText(/Expires in: \d+ seconds/).count()).toBe(1);
    expect(await dashboard.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    // When the countdown would have reached 0, the words go; the customer's check stays.
    await dashboard.clock.fastForward(61_000);
    await expect.poll(() => words.count()).toBe(0);
    expect(await check.textContent()).toMatch(/^Verified by the customer at \d\d:\d\d:\d\d on 127\.0\.0\.1$/);
    expect(await dashboard.getByText(CODES_TEXT.codeExpired).count()).toBe(0);
  });

  it("a customer reports a failed call from the widget on the organisation's site, and the employer sees it", async () => {
    const { org, website } = await organisation("Report Ltd", "localhost");
    const boss = await createUser(suite.server, { organisationId: org.id, role: "superuser", fullName: "Rita Boss" });

    const customer = await suite.newPage(PHONE);
    await customer.goto(website);
    await verifyInWidget(customer, "apple river stone");
    await customer.getByText(WIDGET_TEXT.notVerified).waitFor();
    await customer.getByRole("button", { name: REPORT_FORM_TEXT.reportButton }).click();
    // Nothing filled in: refused before sending.
    await customer.getByRole("button", { name: REPORT_FORM_TEXT.send }).click();
    await customer.getByText(REPORT_FORM_TEXT.empty).waitFor();
    await customer.getByLabel(REPORT_FIELDS.callerNumber).fill("+44 20 7946 0123");
    await customer.getByLabel(REPORT_FIELDS.claimedName).fill("<b>Bank</b> security team");
    await customer.getByLabel(REPORT_FIELDS.note).fill("my online banking password");
    await customer.getByRole("button", { name: REPORT_FORM_TEXT.send }).click();
    await customer.getByText(REPORT_FORM_TEXT.sent).waitFor();
    expect(await customer.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);

    const employer = await suite.newPage();
    await openSignedIn(employer, suite.server, boss, "/employer-dashboard");
    await openEmployerSection(employer, "Fraud and reports");
    const reports = employer.getByRole("region", { name: REPORTS_TEXT.employerTitle });
    const row = reports.getByRole("row", { name: /\+44 20 7946 0123/ });
    await row.waitFor();
    // The stranger's text is shown as text, not markup.
    expect(await row.textContent()).toContain("<b>Bank</b> security team");
    expect(await reports.locator("b").count()).toBe(0);
    // Search by number, typed differently.
    await reports.getByLabel(REPORTS_TEXT.searchLabel).fill("7946 0123");
    await reports.getByText(/Reported calls \(1 matching/).waitFor();

    // The activity chart counts it today.
    const activity = employer.getByRole("region", { name: /Activity/ });
    await activity.getByText("Show as a table").click();
    const today = new Date().toISOString().slice(0, 10);
    await expect.poll(() => activity.getByRole("row", { name: new RegExp(today) }).textContent()).toMatch(/1$/);
  });
});
