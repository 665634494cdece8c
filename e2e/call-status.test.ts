/**
 * The call-status component (contract, "Calls": "The call-status component") as a customer meets it: on a
 * signed-in page of the organisation's own verified https site (a second origin, served here by the browser's
 * request routing), under a Content-Security-Policy without 'unsafe-inline' and with Trusted Types, embedded
 * as the public config gives it (PUBLIC_URL/call-status.<hash>.js with its SRI hash), with a status token the
 * organisation's backend minted. The calls are the dialler's, through the integration API.
 */
import { callReports } from "@server/db/schema";
import type { ApiKeyScope } from "@shared/api-keys";
import { CALL_STATUS_TEXTS } from "@shared/call-status-texts";
import { createEmployee, createEmployer } from "@test/fixtures";
import { signIn } from "@test/helpers";
import { eq } from "drizzle-orm";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  DESKTOP,
  type E2eServer,
  launchBrowser,
  PHONE,
  SCREENSHOTS_DIR,
  seriousViolations,
  setUpBrowserSuite,
  startServer,
} from "./support";

const suite = setUpBrowserSuite();
const EN = CALL_STATUS_TEXTS.en;
const FR = CALL_STATUS_TEXTS.fr;
/** The customer's phone: 390 px wide. */
const PHONE_390 = { width: 390, height: PHONE.height };
const SHOTS = SCREENSHOTS_DIR;

const fill = (text: string, values: Record<string, string>) => text.replace(/\{(\w+)\}/g, (_, k) => values[k] ?? "");
let refs = 0;

/** An organisation ("Globex Bank") with an employee ("Ada Lovelace"), a dialler's key and a key minting tokens. */
async function organisation(server: E2eServer) {
  const employer = await createEmployer(server, { companyName: "Globex Bank" });
  const employee = await createEmployee(server, employer.org.id, employer.domain, { fullName: "Ada Lovelace" });
  const browser = await signIn(server, employer.user.email);
  const key = async (scopes: ApiKeyScope[]) => {
    const res = await browser.post("/api/employer/api-keys", { name: `key ${scopes.join(" ")} ${++refs}`, scopes });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().key as string;
  };
  const dialler = await key(["calls:write", "calls:read"]);
  const backend = await key(["calls:read", "checks:answer"]);
  const customerRef = `CUST-${Date.now().toString(36)}-${++refs}`;
  const v1 = async (key: string, url: string, body?: unknown, method = "POST") => {
    const res = await fetch(`${server.url}/api/v1${url}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    expect(res.status, `${method} ${url}: ${text}`).toBeLessThan(300);
    return JSON.parse(text || "null");
  };
  return {
    organisationId: employer.org.id,
    origin: `https://www.${employer.domain}`,
    startCall: (direction: "outbound" | "inbound") =>
      v1(dialler, "/calls", { employeeEmail: employee.email, customerRef, direction }) as Promise<{ id: string }>,
    endCall: (id: string) => v1(dialler, `/calls/${id}/end`),
    askCustomer: (callId: string) => v1(dialler, `/calls/${callId}/customer-check`) as Promise<{ id: string }>,
    check: (id: string) => v1(dialler, `/customer-checks/${id}`, undefined, "GET"),
    /** the organisation's backend revokes every token of the customer (the customer signed out everywhere) */
    revokeTokens: () => v1(backend, "/customers/status-tokens", { customerRef }, "DELETE"),
    token: async () =>
      (
        (await v1(backend, "/customers/status-token", {
          customerRef,
          origin: `https://www.${employer.domain}`,
          answer: true,
        })) as {
          token: string;
        }
      ).token,
  };
}
type Org = Awaited<ReturnType<typeof organisation>>;

/**
 * The organisation's signed-in page on its own origin, embedding the component as the public config says,
 * under a CSP without 'unsafe-inline' or 'unsafe-eval' and with Trusted Types required. Fails the test on a
 * CSP violation or a script error.
 */
async function customerPage(
  server: E2eServer,
  org: Org,
  opts: { lang?: string; viewport?: typeof DESKTOP; tokenUrl?: boolean; framed?: boolean } = {},
) {
  const config = await (await fetch(`${server.url}/api/public-config`)).json();
  const script = config.callStatusScript as { src: string; integrity: string };
  expect(script.src).toMatch(new RegExp(`^${server.url}/call-status\\.[0-9a-f]{12}\\.js$`));
  const browser = await launchBrowser();
  const context = await browser.newContext({ viewport: opts.viewport ?? PHONE_390 });
  context.setDefaultTimeout(10_000);
  // The page's origin is public, CallProof's here is on loopback: Chromium asks the user first.
  await context.grantPermissions(["local-network-access"], { origin: org.origin });
  const nonce = "n0nce-e2e";
  const csp = [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    `connect-src ${server.url} ${org.origin}`,
    "frame-src 'self'",
    "require-trusted-types-for 'script'",
    "trusted-types 'none'",
  ].join("; ");
  const tokenAttribute = opts.tokenUrl
    ? `data-token-url="/session/call-status-token"`
    : `data-token="${await org.token()}"`;
  const html = (body: string) =>
    `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Globex Bank: your account</title></head>
<body><main><h1>Your account</h1>${body}</main></body></html>`;
  const embed = `<script nonce="${nonce}" src="${script.src}" integrity="${script.integrity}" crossorigin="anonymous"
 referrerpolicy="no-referrer" ${tokenAttribute}${opts.lang ? ` data-lang="${opts.lang}"` : ""} async></script>`;
  // The organisation's site: the account page, the same in a frame, and its token endpoint (the customer's session).
  await context.route(`${org.origin}/**`, async (route) => {
    const path = new URL(route.request().url()).pathname;
    if (path === "/session/call-status-token")
      return route.fulfill({ contentType: "application/json", body: JSON.stringify({ token: await org.token() }) });
    const frame = `<iframe src="/framed" title="Call status in a frame" width="360" height="500"></iframe>`;
    const body = opts.framed && path === "/account" ? embed + frame : embed;
    return route.fulfill({
      contentType: "text/html; charset=utf-8",
      headers: { "content-security-policy": csp },
      body: html(body),
    });
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("console", (m) => {
    if (/Content.Security.Policy|Trusted Type|integrity/i.test(m.text())) problems.push(m.text());
  });
  page.on("pageerror", (e) => problems.push(String(e)));
  await page.goto(`${org.origin}/account`);
  const component = page.locator("[data-callproof-call-status] section");
  return { page, component, problems, close: () => context.close() };
}

/** A server this test may stop; a port taken between the check and the listen (other test runs) is tried again. */
async function serverOfItsOwn(): Promise<E2eServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServer();
    } catch (error) {
      if (attempt === 3 || !/EADDRINUSE/.test(String(error))) throw error;
    }
  }
}

/** The component's heading, as the customer reads it. */
const heading = (page: Page) => page.locator("[data-callproof-call-status] h2");

/** axe's serious findings at 390 and 1280 px (axe's own inline styles, which the page's CSP refuses, forgotten). */
async function axeAtBothWidths(page: Page, problems: string[]) {
  const before = problems.length;
  const found: string[] = [];
  for (const viewport of [PHONE_390, DESKTOP]) {
    await page.setViewportSize(viewport);
    found.push(...(await seriousViolations(page)));
  }
  await page.setViewportSize(PHONE_390);
  const after = problems.splice(before).filter((p) => !/^Applying inline style violates/.test(p));
  problems.push(...after);
  return found;
}

/**
 * Records every heading the customer is shown from now on: `seen()` gives them (with the page's time) since
 * the start or the last `forget()`.
 */
async function watchHeadings(page: Page) {
  await page.evaluate(() => {
    const h = document.querySelector("[data-callproof-call-status]")?.shadowRoot?.querySelector("h2");
    const seen: [number, string][] = [];
    (window as unknown as { seen: typeof seen }).seen = seen;
    if (h)
      new MutationObserver(() => seen.push([Date.now(), h.textContent ?? ""])).observe(h, {
        childList: true,
        characterData: true,
        subtree: true,
      });
  });
  return {
    seen: () => page.evaluate(() => [...(window as unknown as { seen: [number, string][] }).seen]),
    forget: () => page.evaluate(() => void (window as unknown as { seen: [number, string][] }).seen.splice(0)),
  };
}

const hhmm = (iso: string) =>
  new Date(iso).toLocaleString("en", { hour: "2-digit", minute: "2-digit", hourCycle: "h23" });

describe("the call-status component on the organisation's own page", () => {
  it("shows the dialler's outbound call, asks the outbound question after a check, takes Yes, then shows the call ended", async () => {
    const org = await organisation(suite.server);
    const { page, component, problems, close } = await customerPage(suite.server, org, { lang: "en" });
    try {
      await heading(page).filter({ hasText: "Globex Bank is not calling you right now." }).waitFor();
      await component.getByText(EN.noRecentCall).waitFor();
      await component.getByRole("button", { name: "Report this call" }).waitFor();

      const call = await org.startCall("outbound");
      const started = (call as unknown as { startedAt: string }).startedAt;
      await heading(page)
        .filter({ hasText: `Ada from Globex Bank is calling you now (since ${hhmm(started)}).` })
        .waitFor();
      await component.getByText(fill(EN.callingHint, { name: "Ada" })).waitFor();
      await component.screenshot({ path: `${SHOTS}/call-status-en-calling.png` });

      const check = await org.askCustomer(call.id);
      await heading(page).filter({ hasText: "Are you on the phone with Ada from Globex Bank right now?" }).waitFor();
      const no = component.getByRole("button", { name: "No", exact: true });
      const yes = component.getByRole("button", { name: "Yes, I'm speaking to Ada" });
      // Neither answer can be pressed at once (nor is either focused), then both can.
      expect([await no.isDisabled(), await yes.isDisabled()]).toEqual([true, true]);
      expect(await page.evaluate(() => document.activeElement?.tagName)).toBe("BODY");
      await expect.poll(() => yes.isEnabled()).toBe(true);
      expect(await no.isEnabled()).toBe(true);
      // Equally prominent: the same size and look.
      const [a, b] = [await no.boundingBox(), await yes.boundingBox()];
      expect(a && b && [a.width, a.height]).toEqual(b && [b.width, b.height]);
      await component.screenshot({ path: `${SHOTS}/call-status-en-question.png` });
      expect(await axeAtBothWidths(page, problems)).toEqual([]);

      await yes.click();
      await heading(page)
        .filter({ hasText: fill(EN.saidYes, { name: "Ada" }) })
        .waitFor();
      await expect.poll(async () => (await org.check(check.id)).status).toBe("confirmed");
      expect((await org.check(check.id)).answeredVia).toBe("component");

      await org.endCall(call.id);
      await heading(page).filter({ hasText: "Globex Bank is not calling you right now." }).waitFor();
      const date = new Date(started).toLocaleString("en", { dateStyle: "long", timeStyle: "short", hourCycle: "h23" });
      await component.getByText(`Our last call to you: ${date}`).waitFor();
      await component.screenshot({ path: `${SHOTS}/call-status-en-not-calling.png` });
      expect(await axeAtBothWidths(page, problems)).toEqual([]);
      // Nothing wider than the phone.
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(
        0,
      );
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it("in French: asks the inbound question, and No tells the customer to hang up", async () => {
    const org = await organisation(suite.server);
    const { page, component, problems, close } = await customerPage(suite.server, org, { lang: "fr" });
    try {
      await heading(page).filter({ hasText: "Globex Bank ne vous appelle pas en ce moment." }).waitFor();
      await component.screenshot({ path: `${SHOTS}/call-status-fr-not-calling.png` });
      const call = await org.startCall("inbound");
      // An inbound call is never shown as the organisation calling.
      const check = await org.askCustomer(call.id);
      await heading(page)
        .filter({
          hasText:
            "Venez-vous d'appeler Globex Bank ? Ada, chez Globex Bank, parle avec une personne qui affirme être vous.",
        })
        .waitFor();
      expect(await component.getAttribute("lang")).toBe("fr");
      const no = component.getByRole("button", { name: "Non, je n'ai pas appelé Globex Bank" });
      await component.getByRole("button", { name: "Oui, j'ai appelé et je parle avec Ada" }).waitFor();
      await expect.poll(() => no.isEnabled()).toBe(true);
      await component.screenshot({ path: `${SHOTS}/call-status-fr-question.png` });
      expect(await axeAtBothWidths(page, problems)).toEqual([]);

      await no.click();
      await heading(page)
        .filter({ hasText: fill(FR.saidNo, { company: "Globex Bank" }) })
        .waitFor();
      await component.getByRole("button", { name: "Signaler cet appel" }).waitFor();
      await expect.poll(async () => (await org.check(check.id)).status).toBe("denied");
      await component.screenshot({ path: `${SHOTS}/call-status-fr-answered-no.png` });

      // Report this call: to the organisation, marked as from the component.
      await component.getByRole("button", { name: "Signaler cet appel" }).click();
      await component.getByLabel(FR.callerNumber).fill("+33 1 23 45 67 89");
      await component.getByRole("button", { name: FR.send }).click();
      await component.getByText("Merci. Globex Bank a bien reçu votre signalement.").waitFor();
      const reports = await suite.server.database.db
        .select()
        .from(callReports)
        .where(eq(callReports.organisationId, org.organisationId));
      expect(reports.map((r) => [r.callerNumber, r.via])).toEqual([["+33 1 23 45 67 89", "call-status"]]);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it("with the server stopped shows the unavailable warning within 10 s, and never the last state again", async () => {
    const server = await serverOfItsOwn();
    let stopped = false;
    try {
      const org = await organisation(server);
      const { page, component, close } = await customerPage(server, org, { lang: "en" });
      try {
        await org.startCall("outbound");
        await heading(page).filter({ hasText: "Ada from Globex Bank is calling you now" }).waitFor();
        // Every heading the customer is shown from now on.
        const headings = await watchHeadings(page);
        const at = Date.now();
        const closing = server.close();
        stopped = true;
        const warning = fill(EN.unavailable, { company: "Globex Bank" });
        await heading(page).filter({ hasText: warning }).waitFor({ timeout: 15_000 });
        await closing;
        await component.screenshot({ path: `${SHOTS}/call-status-en-unavailable.png` });
        const seen = await headings.seen();
        // "Checking…" at once, the warning within 10 s of the server stopping (the page's clock is this one),
        // and the call never again.
        expect(seen.map(([, text]) => text)).toEqual([EN.checking, warning]);
        const warnedAt = seen[1]?.[0] ?? Number.POSITIVE_INFINITY;
        expect(warnedAt - at).toBeLessThanOrEqual(10_500);
      } finally {
        await close();
      }
    } finally {
      if (!stopped) await server.close();
    }
  }, 150_000);

  it("takes its token from the page's own token URL, and in a frame shows the call but asks nothing", async () => {
    const org = await organisation(suite.server);
    const { page, problems, close } = await customerPage(suite.server, org, {
      lang: "en",
      tokenUrl: true,
      framed: true,
    });
    try {
      const frame = page.frameLocator("iframe");
      const framedHeading = frame.locator("[data-callproof-call-status] h2");
      await framedHeading.filter({ hasText: "Globex Bank is not calling you right now." }).waitFor();
      const call = await org.startCall("outbound");
      await framedHeading.filter({ hasText: "Ada from Globex Bank is calling you now" }).waitFor();
      await org.askCustomer(call.id);
      // The question is asked only in the top-level window: the same page's own component asks it, while the
      // one in the frame keeps showing the call, with no buttons.
      await heading(page).filter({ hasText: "Are you on the phone with Ada from Globex Bank right now?" }).waitFor();
      await framedHeading.filter({ hasText: "Ada from Globex Bank is calling you now" }).waitFor();
      expect(await frame.locator("[data-callproof-call-status] button").count()).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it("when it cannot tell (a restore from the back/forward cache, the tab visible again, the server answering 503, the token revoked) it checks again and never shows the last state", async () => {
    const org = await organisation(suite.server);
    const { page, problems, close } = await customerPage(suite.server, org, { lang: "en" });
    const calling = "Ada from Globex Bank is calling you now";
    const warning = fill(EN.unavailable, { company: "Globex Bank" });
    try {
      await org.startCall("outbound");
      await heading(page).filter({ hasText: calling }).waitFor();
      const headings = await watchHeadings(page);
      // The headings since the last look, the call's without its start time.
      const texts = async () => (await headings.seen()).map(([, text]) => text.replace(/ \(since \d\d:\d\d\)\.$/, ""));

      // The server past its cap: every stream is answered 503 (with the CORS of the token's origin).
      const stream = `${suite.server.url}/api/call-status/stream`;
      await page.route(stream, (route) =>
        route.fulfill({
          status: 503,
          headers: {
            "retry-after": "15",
            "access-control-allow-origin": org.origin,
            "access-control-expose-headers": "retry-after",
          },
          contentType: "application/json",
          body: JSON.stringify({ error: "unavailable", message: "Too many streams." }),
        }),
      );
      // The page comes back from the back/forward cache (the event the browser fires for it): the component
      // cannot tell, says so, and with only 503s to go on warns the customer within 10 s, never the call.
      const restoredAt = Date.now();
      await page.evaluate(() => window.dispatchEvent(new PageTransitionEvent("pageshow", { persisted: true })));
      await heading(page).filter({ hasText: warning }).waitFor({ timeout: 15_000 });
      const seen = await headings.seen();
      expect(await texts()).toEqual([EN.checking, warning]);
      expect((seen[1]?.[0] ?? Number.POSITIVE_INFINITY) - restoredAt).toBeLessThanOrEqual(10_500);
      await headings.forget();

      // The server answers again: the component's poll (every 15 s) finds the call.
      await page.unroute(stream);
      await heading(page).filter({ hasText: calling }).waitFor({ timeout: 20_000 });
      expect(await texts()).toEqual([calling]);
      await headings.forget();

      // The tab is shown again after being hidden: "Checking…", then the state the server confirms.
      await page.evaluate(() => document.dispatchEvent(new Event("visibilitychange")));
      await expect.poll(texts).toEqual([EN.checking, calling]);
      await headings.forget();

      // The organisation revokes the customer's tokens while the page is open: the call is no longer shown,
      // the warning is, and it stays.
      await org.revokeTokens();
      await heading(page).filter({ hasText: warning }).waitFor();
      expect((await texts()).filter((text) => text !== EN.checking)).toEqual([warning]);
      await page.evaluate(() => document.dispatchEvent(new Event("visibilitychange")));
      expect(await heading(page).textContent()).toBe(warning);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  }, 150_000);
});
