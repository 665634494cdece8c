/**
 * The employee's side of calls (contract, "Calls") on /dashboard: a reference typed before Generate
 * Identity Code starts an outbound call; Ask the customer to confirm, answered by the organisation's backend
 * (`POST /api/v1/customer-checks/:id` with a checks:answer key), turns the screen green within 1 s; on an
 * inbound call a denial turns it red, removes the Ask button and raises the denied-checks alert; End call;
 * Not my call for a call the dialler started; the verified code's countdown runs on to 0; axe at 390 and
 * 1280 px, and the screenshots docs/screenshots/calls-dashboard-*.png.
 */
import { calls as callsTable, customerChecks } from "@server/db/schema";
import { raiseDueAlerts } from "@server/features/alerts/service";
import { ALERTS_TEXT } from "@shared/alerts";
import type { ApiKeyScope } from "@shared/api-keys";
import { CODES_TEXT } from "@shared/codes";
import { createEmployee, createEmployer, freshIp, verify } from "@test/fixtures";
import { signIn } from "@test/helpers";
import { CALL_PANEL_TEXT as T } from "@web/features/calls/texts";
import { and, eq, isNull } from "drizzle-orm";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  DESKTOP,
  openEmployerSection,
  SCREENSHOTS_DIR,
  seriousViolations,
  setUpBrowserSuite,
  signInThroughUi,
} from "./support";

const suite = setUpBrowserSuite({ TRUST_PROXY: "127.0.0.1" });
const PHONE_390 = { width: 390, height: 844 } as const;
const SHOTS = SCREENSHOTS_DIR;

/** An organisation (superuser and one employee) whose superuser made a key with `scopes`, named `name`. */
async function organisation(opts: { companyName?: string } = {}) {
  const employer = await createEmployer(suite.server, { companyName: opts.companyName ?? "Globex" });
  const employee = await createEmployee(suite.server, employer.org.id, employer.domain, { fullName: "Ada Agent" });
  const boss = await signIn(suite.server, employer.user.email);
  const key = async (name: string, scopes: ApiKeyScope[]) => {
    const res = await boss.post("/api/employer/api-keys", { name, scopes });
    if (res.statusCode !== 201) throw new Error(`api key: ${res.statusCode} ${res.body}`);
    return res.json().key as string;
  };
  return { ...employer, employee, key };
}

/** A call of the organisation's integration: the key, JSON, no cookie, its own client address. */
async function v1(key: string, method: "GET" | "POST", url: string, body?: object) {
  const res = await suite.server.app.inject({
    method,
    url,
    headers: {
      authorization: `Bearer ${key}`,
      "x-forwarded-for": freshIp(),
      ...(body ? { "content-type": "application/json" } : {}),
    },
    ...(body ? { payload: JSON.stringify(body) } : {}),
  });
  return { status: res.statusCode, json: () => res.json() };
}

/** The employee's active call and its latest check, as stored (the ids a customer's app would be told). */
async function activeCall(userId: number) {
  const [call] = await suite.server.database.db
    .select()
    .from(callsTable)
    .where(and(eq(callsTable.userId, userId), isNull(callsTable.endedAt)));
  return call ?? null;
}
async function checkOf(callId: string) {
  const rows = await suite.server.database.db.select().from(customerChecks).where(eq(customerChecks.callId, callId));
  const check = rows.at(-1);
  if (!check) throw new Error("no check");
  return check;
}

async function openDashboard(
  email: string,
  password: string,
  viewport: { width: number; height: number } = DESKTOP,
): Promise<Page> {
  const page = await suite.newPage(viewport);
  await signInThroughUi(page, suite.server, email, password);
  await page.goto("/dashboard");
  await page.getByLabel(T.customerRefLabel).waitFor();
  return page;
}

const panel = (page: Page) => page.getByRole("region", { name: T.title });
const checkLine = (page: Page) => panel(page).locator(".call-check");

/** A whole-page screenshot from the top (a sticky header would otherwise be drawn where the page was scrolled). */
async function screenshot(page: Page, name: string) {
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
}

async function expectAccessible(page: Page) {
  expect(await seriousViolations(page)).toEqual([]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
}

describe("calls on /dashboard", () => {
  it("a reference typed before Generate Identity Code starts an outbound call; a Yes through the API turns it green within 1 s", async () => {
    suite.server.clock.set(Date.now());
    const org = await organisation();
    const answerKey = await key(org, "Globex app", ["calls:read", "checks:answer"]);
    const dialler = await key(org, "Dialler", ["calls:write"]);

    for (const viewport of [PHONE_390, DESKTOP]) {
      const page = await openDashboard(org.employee.email, org.employee.password, viewport);
      const field = page.getByLabel(T.customerRefLabel);
      expect(await field.getAttribute("autocomplete")).toBe("off");
      await field.fill("C-104233");
      await page.getByRole("button", { name: CODES_TEXT.generateButton }).click();
      await expect.poll(async () => (await page.locator(".identity__words").textContent()) ?? "").toMatch(/ \/ /);
      await panel(page).getByText(T.calling("C-104233")).waitFor();
      // The specified screen is unchanged above it: the words and their countdown.
      await page.getByText(/Expires in: \d+ seconds/).waitFor();

      // The customer's app sees the organisation calling now.
      const status = await v1(answerKey, "POST", "/api/v1/customers/call-status", { customerRef: "C-104233" });
      expect(status.status).toBe(200);
      expect(status.json().calling).toEqual([
        expect.objectContaining({ employee: { firstName: "Ada", fullName: "Ada Agent" } }),
      ]);

      // A colleague on a call with the same customer (the dialler, in another employee's name).
      const colleague = await createEmployee(suite.server, org.org.id, org.domain, { fullName: "Bo Colleague" });
      const other = await v1(dialler, "POST", "/api/v1/calls", {
        employeeEmail: colleague.email,
        customerRef: "C-104233",
        direction: "outbound",
      });
      expect(other.status).toBe(201);
      await panel(page).getByText(T.colleague).waitFor();
      expect((await v1(dialler, "POST", `/api/v1/calls/${other.json().id}/end`)).status).toBe(200);
      await expect.poll(() => panel(page).getByText(T.colleague).count()).toBe(0);

      await panel(page).getByRole("button", { name: T.ask }).click();
      await expect.poll(() => checkLine(page).textContent()).toBe(T.waiting);
      expect(await panel(page).getByRole("button", { name: T.ask }).count()).toBe(0);
      await expectAccessible(page);

      const call = await activeCall(org.employee.id);
      const check = await checkOf(call!.id);
      const answered = await v1(answerKey, "POST", `/api/v1/customer-checks/${check.id}`, { answer: "confirmed" });
      expect(answered.json()).toEqual({ id: check.id, status: "confirmed" });
      await expect
        .poll(() => checkLine(page).textContent(), { timeout: 1_000, interval: 50 })
        .toMatch(/^The customer pressed Yes through Globex app at \d\d:\d\d:\d\d\. A Yes alone is not enough/);
      expect(await checkLine(page).getAttribute("data-state")).toBe("confirmed");
      await expectAccessible(page);
      await screenshot(page, `calls-dashboard-confirmed-${viewport === DESKTOP ? "desktop" : "phone"}`);

      await panel(page).getByRole("button", { name: T.end }).click();
      await page.getByLabel(T.customerRefLabel).waitFor();
      await panel(page).getByText(T.ended).waitFor();
      const after = await v1(answerKey, "POST", "/api/v1/customers/call-status", { customerRef: "C-104233" });
      expect(after.json().calling).toEqual([]);
      expect(after.json().lastCallAt).not.toBeNull();
      await expectAccessible(page);
    }
  });

  it("on an inbound call a No turns the screen red, removes Ask the customer to confirm, and raises the alert", async () => {
    suite.server.clock.set(Date.now());
    const org = await organisation();
    const answerKey = await key(org, "Globex app", ["calls:read", "checks:answer"]);
    const page = await openDashboard(org.employee.email, org.employee.password, PHONE_390);
    await page.getByLabel(T.customerRefLabel).fill("C-200001");
    await panel(page).getByRole("button", { name: T.theyCalled }).click();
    await panel(page).getByText(T.calledUs("C-200001")).waitFor();
    expect(await panel(page).getByRole("button", { name: T.notMine }).count()).toBe(0);

    // An inbound call is never shown to the customer as the organisation calling them.
    const status = await v1(answerKey, "POST", "/api/v1/customers/call-status", { customerRef: "C-200001" });
    expect(status.json().calling).toEqual([]);

    await panel(page).getByRole("button", { name: T.ask }).click();
    await expect.poll(() => checkLine(page).textContent()).toBe(T.waiting);
    const call = await activeCall(org.employee.id);
    const check = await checkOf(call!.id);
    expect((await v1(answerKey, "POST", `/api/v1/customer-checks/${check.id}`, { answer: "denied" })).status).toBe(200);
    await expect.poll(() => checkLine(page).textContent(), { timeout: 1_000, interval: 50 }).toBe(T.denied);
    expect(await checkLine(page).getAttribute("data-state")).toBe("denied");
    expect(await panel(page).getByRole("button", { name: T.ask }).count()).toBe(0);
    await expectAccessible(page);
    await screenshot(page, "calls-dashboard-denied-phone");

    // The red notice stays after a reload, until the call ends; no second check.
    await page.reload();
    await expect.poll(() => checkLine(page).textContent()).toBe(T.denied);
    expect(await panel(page).getByRole("button", { name: T.ask }).count()).toBe(0);

    // The fraud team's alert, on the employer dashboard, with its threshold among the settings.
    await raiseDueAlerts(suite.server.app.deps);
    const boss = await suite.newPage(DESKTOP);
    await signInThroughUi(boss, suite.server, org.user.email, org.user.password, "/employer-dashboard");
    await openEmployerSection(boss, "Fraud and reports");
    const alerts = boss.getByRole("region", { name: ALERTS_TEXT.title, exact: true });
    await alerts.getByRole("row", { name: new RegExp(ALERTS_TEXT.kinds["denied-checks"]) }).waitFor();
    expect(await alerts.getByLabel(ALERTS_TEXT.deniedChecksLabel).inputValue()).toBe("1");

    // Sites and widget: the call-status component's tag, versioned, with its SRI hash.
    await openEmployerSection(boss, "Sites and widget");
    const tag = boss.getByRole("region", { name: "Call status in your app" }).locator("pre");
    expect(await tag.textContent()).toMatch(
      /<script src="http:\/\/localhost:\d+\/call-status\.[0-9a-f]{12}\.js"\s+integrity="sha384-[A-Za-z0-9+/=]+"/,
    );
    expect(await seriousViolations(boss)).toEqual([]);

    await panel(page).getByRole("button", { name: T.end }).click();
    await page.getByLabel(T.customerRefLabel).waitFor();
    expect(await panel(page).getByText(T.denied).count()).toBe(0);
  });

  it("Not my call ends a call the dialler started in the employee's name and alerts the fraud team", async () => {
    suite.server.clock.set(Date.now());
    const org = await organisation();
    const dialler = await key(org, "Dialler", ["calls:write"]);
    const reader = await key(org, "Status", ["calls:read"]);
    const started = await v1(dialler, "POST", "/api/v1/calls", {
      employeeEmail: org.employee.email,
      customerRef: "C-300003",
      direction: "outbound",
    });
    expect(started.status).toBe(201);

    const page = await suite.newPage(DESKTOP);
    await signInThroughUi(page, suite.server, org.employee.email, org.employee.password);
    await page.goto("/dashboard");
    await panel(page).getByText(T.calling("C-300003")).waitFor();
    await panel(page).getByText(T.startedThroughApi).waitFor();
    await expectAccessible(page);
    await screenshot(page, "calls-dashboard-desktop");

    await panel(page).getByRole("button", { name: T.notMine }).click();
    await panel(page).getByText(T.disowned).waitFor();
    await page.getByLabel(T.customerRefLabel).waitFor();
    const status = await v1(reader, "POST", "/api/v1/customers/call-status", { customerRef: "C-300003" });
    expect(status.json().calling).toEqual([]);

    await raiseDueAlerts(suite.server.app.deps);
    const boss = await signIn(suite.server, org.user.email);
    const alerts = (await boss.get("/api/employer/alerts")).json() as { recent: Array<{ kind: string }> };
    expect(alerts.recent.map((a) => a.kind)).toContain("disowned-calls");
  });

  it("a verified code's 'Expires in: N seconds' keeps counting down to 0 beside the verified notice", async () => {
    suite.server.clock.set(Date.now());
    const org = await organisation();
    const page = await suite.newPage(DESKTOP);
    await page.clock.install();
    await signInThroughUi(page, suite.server, org.employee.email, org.employee.password);
    await page.goto("/dashboard");
    suite.server.clock.set(Date.now());
    await page.getByRole("button", { name: CODES_TEXT.generateButton }).click();
    const words = page.locator(".identity__words");
    await expect.poll(async () => (await words.textContent()) ?? "").toMatch(/^[a-z]+ \/ [a-z]+ \/ [a-z]+$/);

    const typed = ((await words.textContent()) ?? "").split(" / ").join(" ");
    expect((await verify(suite.server, typed, { origin: org.org.website })).json().verified).toBe(true);
    await page.getByText(/^Verified by the customer at /).waitFor();
    // From here the page's time moves only when the test moves it: on a loaded machine a second of real
    // time between two reads would otherwise count too. The pause is 5 s ahead of the page's time when it
    // was read: 100 ms ahead, it could already have passed when the pause reached the page ("Cannot
    // fast-forward to the past", a loaded machine, 2026-11-28); the code has about 55 s left, and the
    // test reads the countdown only after the pause.
    await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 5_000);

    const timer = page.getByText(/Expires in: \d+ seconds/);
    const seconds = async () => Number(/(\d+)/.exec((await timer.textContent()) ?? "")?.[1]);
    const start = await seconds();
    expect(start).toBeGreaterThan(3);
    await page.clock.runFor(3_000);
    expect(await seconds()).toBe(start - 3);
    await page.getByText(/^Verified by the customer at /).waitFor();
    await page.clock.runFor((start - 4) * 1000);
    expect(await seconds()).toBe(1);
    await page.clock.runFor(1_000);
    await expect.poll(() => words.count()).toBe(0);
    expect(await page.getByText(/Expires in/).count()).toBe(0);
    // The verified notice stays after the words go.
    await page.getByText(/^Verified by the customer at /).waitFor();
  });
});

/** A key of the organisation, made by its superuser on the dashboard's API (shown once). */
function key(org: Awaited<ReturnType<typeof organisation>>, name: string, scopes: ApiKeyScope[]) {
  return org.key(name, scopes);
}
