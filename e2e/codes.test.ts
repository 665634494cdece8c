/**
 * Identity codes end to end: an employee generates a code on /dashboard; a page on a second origin
 * (http://127.0.0.1:<port2>, while the product is http://localhost:<port>) embeds the widget with the
 * /download snippet and verifies it for the organisation whose website is that origin, and refuses a
 * code of another organisation; /in-a-call verifies a fresh code once; the countdown clears the words.
 * (http origins are accepted only on localhost/127.0.0.1 hosts, so organisation A's website is
 * http://127.0.0.1:<port2>.)
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { CODES_TEXT, loaderSnippet, plainSnippet, WIDGET_TEXT } from "@shared/codes";
import { UI_TIMING } from "@shared/constants";
import { MESSAGES } from "@shared/messages";
import { createOrganisation, storeCode } from "@test/fixtures";
import { createUser } from "@test/helpers";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSignedIn, setUpBrowserSuite } from "./support";

const suite = setUpBrowserSuite();
const { newPage } = suite;
let site: Server;
let siteUrl: string;

/** The organisation's own website: a plain page with one of the /download snippets pasted in. */
function startSite(productUrl: string): Promise<Server> {
  const page = (snippet: string) =>
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Org A</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:serif;color:red} input,button,p{all:unset;color:red}</style></head>
<body><h1>Org A support</h1>${snippet}</body></html>`;
  const routes: Record<string, string> = {
    "/loader": page(
      loaderSnippet(productUrl, UI_TIMING.widgetLoadTries, UI_TIMING.widgetLoadDelayMs, MESSAGES.widgetLoadFailed),
    ),
    "/plain": page(plainSnippet(productUrl)),
    // The loader, pointed at a product that does not answer (port 9: discard, nothing listens).
    "/loader-unreachable": page(
      loaderSnippet(
        "http://127.0.0.1:9",
        UI_TIMING.widgetLoadTries,
        UI_TIMING.widgetLoadDelayMs,
        MESSAGES.widgetLoadFailed,
      ),
    ),
  };
  const s = createServer((req, res) => {
    const body = routes[req.url ?? ""];
    res.writeHead(body ? 200 : 404, { "content-type": "text/html; charset=utf-8" });
    res.end(body ?? "not found");
  });
  return new Promise((resolve) => s.listen(0, "127.0.0.1", () => resolve(s)));
}

beforeAll(async () => {
  site = await startSite(suite.server.url);
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => site?.close(resolve));
});

/** An employee of a new organisation whose website is proved (as by its DNS record). */
async function employee(website: string, companyName: string, fullName: string) {
  const organisation = await createOrganisation(suite.server, { website, companyName, websiteProved: true });
  const user = await createUser(suite.server, { organisationId: organisation.id, fullName });
  return { organisation, user };
}

/** Types a code into the widget on `page` (inside its Shadow DOM) and submits it with Enter. */
async function verifyInWidget(page: Page, words: string) {
  const input = page.getByLabel(WIDGET_TEXT.label);
  await input.fill(words);
  await input.press("Enter");
}

/** Generates a code on /dashboard and reads the words off the screen. */
async function generateOnDashboard(page: Page): Promise<string> {
  const before = await page
    .locator(".identity__words")
    .textContent({ timeout: 100 })
    .catch(() => null);
  await page.getByRole("button", { name: CODES_TEXT.generateButton }).click();
  const words = page.locator(".identity__words");
  await expect.poll(async () => (await words.textContent()) ?? "").toMatch(/^[a-z]+ \/ [a-z]+ \/ [a-z]+$/);
  if (before) await expect.poll(async () => await words.textContent()).not.toBe(before);
  return (await words.textContent()) as string;
}

describe("identity codes", () => {
  it("an employee's code verifies on the organisation's own website and not on another's", async () => {
    suite.server.clock.set(Date.now());
    const a = await employee(siteUrl, "Org A", "Alice Caller");
    const b = await employee("https://www.org-b.example", "Org B", "Bob Caller");

    const dashboard = await newPage();
    await openSignedIn(dashboard, suite.server, a.user, "/dashboard");
    await expect.poll(() => dashboard.getByText("Alice Caller").count()).toBe(1);
    await expect.poll(() => dashboard.getByText("Org A").count()).toBe(1);
    const link = dashboard.getByRole("link", { name: siteUrl });
    expect(await link.getAttribute("target")).toBe("_blank");
    expect(await link.getAttribute("rel")).toBe("noopener noreferrer");

    const words = await generateOnDashboard(dashboard);
    await expect.poll(() => dashboard.getByText(/Expires in: \d+ seconds/).count()).toBe(1);

    // The organisation's site, with the recommended loader snippet, in a browser that never signed in.
    const customer = await newPage();
    await customer.goto(`${siteUrl}/loader`);
    await verifyInWidget(customer, words);
    const result = customer.getByRole("status");
    await expect.poll(() => result.textContent()).toContain("Verified: Alice Caller from Org A");
    expect(await customer.getByRole("link", { name: siteUrl }).getAttribute("rel")).toBe("noopener noreferrer");

    // The same code a second time: used up.
    await verifyInWidget(customer, words);
    await expect.poll(() => result.textContent()).toBe(MESSAGES.codeNotVerified);

    // Org B's code on Org A's site: refused (the widget's own plain snippet this time) ...
    const bWords = await storeCode(suite.server, b.user.id);
    const other = await newPage();
    await other.goto(`${siteUrl}/plain`);
    await verifyInWidget(other, bWords);
    await expect.poll(() => other.getByRole("status").textContent()).toBe(MESSAGES.codeNotVerified);

    // ... without using it up: it still verifies on the product's own /in-a-call page.
    const inACall = await newPage();
    await inACall.goto("/in-a-call");
    await verifyInWidget(inACall, bWords);
    await expect.poll(() => inACall.getByRole("status").textContent()).toContain("Verified: Bob Caller from Org B");
  });

  it("/in-a-call verifies a fresh code once, and works at 320 px", async () => {
    suite.server.clock.set(Date.now());
    const a = await employee(siteUrl, "Org A", "Carol Caller");
    const dashboard = await newPage();
    await openSignedIn(dashboard, suite.server, a.user, "/dashboard");
    const words = await generateOnDashboard(dashboard);

    const page = await newPage({ width: 320, height: 700 });
    await page.goto("/in-a-call");
    await page.getByRole("heading", { name: CODES_TEXT.inACallTitle }).waitFor();
    // Typed loosely: upper case, separators and four-letter prefixes.
    const loose = words
      .split(" / ")
      .map((w) => (w.length > 4 ? w.slice(0, 4) : w).toUpperCase())
      .join("-");
    await verifyInWidget(page, loose);
    const result = page.getByRole("status");
    await expect.poll(() => result.textContent()).toContain("Verified: Carol Caller from Org A");
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);

    await page.getByRole("button", { name: WIDGET_TEXT.button }).click();
    await expect.poll(() => result.textContent()).toBe(MESSAGES.codeNotVerified);
  });

  it("/in-a-call retries loading the widget 3 times, 800 ms apart, then says it failed", async () => {
    const page = await newPage();
    await recordWidgetTries(page);
    await page.route("**/widget.js", (route) => route.abort());
    await page.goto("/in-a-call");
    await expect.poll(() => page.getByRole("alert").textContent(), { timeout: 10_000 }).toBe(MESSAGES.widgetLoadFailed);
    expectTriesApart(await widgetTries(page));
  });

  it("the recommended snippet retries 3 times on another site, then shows the failure message", async () => {
    const page = await newPage();
    await recordWidgetTries(page);
    await page.goto(`${siteUrl}/loader-unreachable`);
    await expect.poll(() => page.getByRole("alert").textContent(), { timeout: 10_000 }).toBe(MESSAGES.widgetLoadFailed);
    expectTriesApart(await widgetTries(page));
  });

  it("the countdown ticks every second from the code's 60 s and clears the words at 0", async () => {
    suite.server.clock.set(Date.now());
    const a = await employee(siteUrl, "Org A", "Dan Caller");
    const page = await newPage();
    await page.clock.install();
    await openSignedIn(page, suite.server, a.user, "/dashboard");
    suite.server.clock.set(Date.now());
    await generateOnDashboard(page);
    const timer = page.getByText(/Expires in: \d+ seconds/);
    const seconds = async () => Number(/(\d+)/.exec((await timer.textContent()) ?? "")?.[1]);
    const start = await seconds();
    expect(start).toBeGreaterThanOrEqual(58);
    expect(start).toBeLessThanOrEqual(60);
    await page.clock.runFor(3_000);
    expect(await seconds()).toBe(start - 3);
    await page.clock.runFor(start * 1000);
    await expect.poll(() => page.locator(".identity__words").count()).toBe(0);
    await expect.poll(() => page.getByText(CODES_TEXT.codeExpired).count()).toBe(1);
    expect(await page.getByText(/Expires in/).count()).toBe(0);
  });

  it("/dashboard shows the spec's errors and clears the info when client-info fails", async () => {
    suite.server.clock.set(Date.now());
    const a = await employee(siteUrl, "Org A", "Fay Caller");
    const page = await newPage();
    await openSignedIn(page, suite.server, a.user, "/dashboard");
    for (let i = 0; i < 3; i++) await generateOnDashboard(page);
    await page.getByRole("button", { name: CODES_TEXT.generateButton }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toBe(MESSAGES.tooManyCodes);

    await page.route("**/api/generate-words", (route) => route.fulfill({ status: 500, body: "" }));
    await page.getByRole("button", { name: CODES_TEXT.generateButton }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toBe(MESSAGES.generateWordsFailed);
    await page.route("**/api/generate-words", (route) =>
      route.fulfill({
        status: 503,
        contentType: "application/json",
        body: JSON.stringify({ message: "Down for a moment." }),
      }),
    );
    await page.getByRole("button", { name: CODES_TEXT.generateButton }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toBe("Down for a moment.");

    await page.route("**/api/client-info", (route) => route.fulfill({ status: 500, body: "" }));
    await page.reload();
    await page.getByRole("button", { name: CODES_TEXT.generateButton }).waitFor();
    expect(await page.getByText("Fay Caller").count()).toBe(0);
  });

  it("/download shows both snippets for this site with Copy buttons; visitors are not authorised", async () => {
    const a = await employee(siteUrl, "Org A", "Erin Caller");
    const page = await newPage();
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: suite.server.url });
    await openSignedIn(page, suite.server, a.user, "/download");
    const codes = page.locator("pre code");
    await expect.poll(() => codes.count()).toBe(2);
    const texts = await codes.allTextContents();
    expect(texts).toContain(plainSnippet(suite.server.url));
    expect(
      texts.some((t) => t.includes(`${suite.server.url}/widget.js`) && t.includes(MESSAGES.widgetLoadFailed)),
    ).toBe(true);

    const copy = page.getByRole("button", { name: /^Copy plain snippet$/ });
    await copy.click();
    await expect.poll(() => page.getByRole("button", { name: /Copied! plain snippet/ }).count()).toBe(1);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(plainSnippet(suite.server.url));
    await expect
      .poll(() => page.getByRole("button", { name: /^Copy plain snippet$/ }).count(), { timeout: 5_000 })
      .toBe(1);

    const visitor = await newPage();
    await visitor.goto("/download");
    await expect.poll(() => visitor.getByText(MESSAGES.notAuthorizedForPage).count()).toBe(1);
  });
});

/**
 * Records, on the page's own clock, when each try to load widget.js fails: the loader's retries, timed
 * where its setTimeout runs (Node's clock would add the delays of reporting them across processes).
 * Consecutive failures are at least the loader's delay apart.
 */
function recordWidgetTries(page: Page) {
  return page.addInitScript(() => {
    const tries: number[] = [];
    Object.assign(window, { __widgetTries: tries });
    window.addEventListener(
      "error",
      (event) => {
        const script = event.target;
        if (script instanceof HTMLScriptElement && script.src.includes("/widget.js")) tries.push(performance.now());
      },
      true,
    );
  });
}

function widgetTries(page: Page): Promise<number[]> {
  return page.evaluate(() => (window as unknown as { __widgetTries: number[] }).__widgetTries);
}

function expectTriesApart(tries: number[]) {
  expect(tries).toHaveLength(UI_TIMING.widgetLoadTries);
  for (let i = 1; i < tries.length; i++) {
    expect((tries[i] as number) - (tries[i - 1] as number)).toBeGreaterThanOrEqual(UI_TIMING.widgetLoadDelayMs);
  }
}
