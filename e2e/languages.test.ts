/**
 * The customer's language end to end: an employee picks French on /dashboard (remembered on the device)
 * and reads French words with their accents; the organisation's own site (a second origin) embeds the
 * widget with data-lang="fr", which speaks French, verifies the code typed without accents, and answers
 * the report form in French; a page with <html lang="es"> gets a Spanish widget; /in-a-call speaks each
 * language with <html lang> set, passes axe in each, and names the domain that vouches for a caller.
 */

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { WORD_LISTS } from "@server/features/codes/words";
import { CODES_TEXT, loaderSnippet, WIDGET_TEXT } from "@shared/codes";
import { UI_TIMING } from "@shared/constants";
import { CATALOGUES, fillIn } from "@shared/i18n";
import { LANGUAGE_NAMES, LANGUAGES } from "@shared/languages";
import { createOrganisation, storeCode } from "@test/fixtures";
import { createUser } from "@test/helpers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSignedIn, seriousViolations, setUpBrowserSuite } from "./support";

const suite = setUpBrowserSuite();
const { newPage } = suite;
let site: Server;
let siteUrl: string;

const fr = CATALOGUES.fr.widget;
const es = CATALOGUES.es.widget;

/** The organisation's own website: one page with the widget's plain tag and data-lang="fr", one in Spanish. */
function startSite(productUrl: string): Promise<Server> {
  const page = (lang: string, attributes: string) =>
    `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>Banque A</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><h1>Banque A</h1><div id="callproof-widget"></div>
<script src="${productUrl}/widget.js" data-target="#callproof-widget" ${attributes} async></script></body></html>`;
  const loaderPage = (lang: string) =>
    `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>Banque A</title></head><body>
${loaderSnippet(
  "http://127.0.0.1:9",
  UI_TIMING.widgetLoadTries,
  UI_TIMING.widgetLoadDelayMs,
  Object.fromEntries(LANGUAGES.map((l) => [l, CATALOGUES[l].loader.loadFailed])),
)}</body></html>`;
  // A page that changes the widget's language as /in-a-call does: the French tag is removed before it
  // has run, and a Spanish one takes its place.
  const replacedPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Banque A</title></head>
<body><div id="callproof-widget"></div><script>
function tag(lang) {
  var s = document.createElement("script");
  s.src = ${JSON.stringify(`${productUrl}/widget.js`)};
  s.async = true;
  s.setAttribute("data-target", "#callproof-widget");
  s.setAttribute("data-lang", lang);
  document.head.appendChild(s);
  return s;
}
tag("fr").remove();
tag("es");
</script></body></html>`;
  const routes: Record<string, string> = {
    "/replaced": replacedPage,
    "/fr": page("en", 'data-lang="fr"'),
    "/es": page("es-ES", ""),
    // the /download loader, pointed at a product that does not answer (port 9: nothing listens)
    "/loader-cs": loaderPage("cs-CZ"),
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

/** The words without accents, in upper case, as a customer may type what they heard. */
const plainUpper = (words: string) => words.normalize("NFD").replace(/\p{M}/gu, "").toUpperCase();

describe("the customer's language", () => {
  it("a French code from /dashboard verifies in the French widget on the organisation's site", async () => {
    suite.server.clock.set(Date.now());
    const org = await createOrganisation(suite.server, {
      website: siteUrl,
      companyName: "Banque A",
      websiteProved: true,
    });
    const user = await createUser(suite.server, { organisationId: org.id, fullName: "Alice Appel" });

    const dashboard = await newPage();
    await openSignedIn(dashboard, suite.server, user, "/dashboard");
    const select = dashboard.getByLabel(CODES_TEXT.customerLanguage);
    await select.waitFor();
    expect(await select.locator("option").allTextContents()).toEqual(LANGUAGES.map((l) => LANGUAGE_NAMES[l]));
    expect(await select.inputValue()).toBe("en");
    await select.selectOption({ label: "Français" });
    // Remembered on the device.
    await dashboard.reload();
    expect(await dashboard.getByLabel(CODES_TEXT.customerLanguage).inputValue()).toBe("fr");
    await dashboard.getByRole("button", { name: CODES_TEXT.generateButton }).click();
    const shown = dashboard.locator(".identity__words");
    await expect
      .poll(async () => (await shown.count()) > 0 && ((await shown.textContent()) ?? ""))
      .toMatch(/ \/ .+ \/ /);
    expect(await shown.getAttribute("lang")).toBe("fr");
    const words = ((await shown.textContent()) ?? "").split(" / ");
    for (const w of words) expect(WORD_LISTS.fr).toContain(w);

    const customer = await newPage();
    await customer.goto(`${siteUrl}/fr`);
    const input = customer.getByLabel(fr.label);
    await input.waitFor();
    expect(await customer.getByText(fr.title).count()).toBe(1);
    expect(await customer.getByRole("button", { name: fr.button }).count()).toBe(1);
    expect(await customer.getByText(fr.hint).count()).toBe(1);
    await input.fill(plainUpper(words.join(" ")));
    await input.press("Enter");
    const result = customer.getByRole("status").first();
    const host = new URL(siteUrl).hostname;
    await expect
      .poll(() => result.textContent())
      .toContain(fillIn(fr.verifiedCompanyDomain, { name: "Alice Appel", company: "Banque A", domain: host }));

    // Again: used up, said in French, and the report form is French too, answered in French by the server.
    await input.fill(words.join(" "));
    await input.press("Enter");
    await expect.poll(() => result.textContent()).toBe(fr.notVerified);
    await customer.getByRole("button", { name: fr.reportButton }).click();
    await customer.getByLabel(fr.callerNumber).fill("+33 1 23 45 67 89");
    expect(await customer.getByLabel(fr.claimedName).count()).toBe(1);
    await customer.getByRole("button", { name: fr.send }).click();
    await expect.poll(() => customer.getByText(fr.sent).count()).toBe(1);
    expect(await seriousViolations(customer)).toEqual([]);
  });

  it("follows the host page's <html lang> without data-lang", async () => {
    const page = await newPage();
    await page.goto(`${siteUrl}/es`);
    await page.getByLabel(es.label).waitFor();
    await page.getByLabel(es.label).fill("uno dos");
    await page.getByLabel(es.label).press("Enter");
    await expect.poll(() => page.getByRole("status").first().textContent()).toBe(es.threeWords);
  });

  it("a widget tag removed before it ran mounts nothing: the tag that replaced it speaks", async () => {
    const page = await newPage();
    await page.goto(`${siteUrl}/replaced`);
    await page.getByLabel(es.label).waitFor();
    expect(await page.locator("[data-callproof-widget]").count()).toBe(1);
    expect(await page.getByLabel(fr.label).count()).toBe(0);
  });

  it("the /download loader says it could not load the widget in the page's language", async () => {
    const page = await newPage();
    await page.goto(`${siteUrl}/loader-cs`);
    await expect
      .poll(() => page.getByRole("alert").textContent(), { timeout: 10_000 })
      .toBe(CATALOGUES.cs.loader.loadFailed);
  });

  it("/in-a-call?lang=es is Spanish with <html lang=es>, switches language, and passes axe in each", async () => {
    const page = await newPage();
    await page.goto("/in-a-call?lang=es");
    await page.getByRole("heading", { level: 1, name: CATALOGUES.es.inACall.title }).waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe("es");
    await page.getByLabel(es.label).waitFor();
    expect(await page.getByText(CATALOGUES.es.inACall.steps[0]).count()).toBe(1);

    const problems: string[] = [];
    let switchName = CATALOGUES.es.inACall.languageLabel;
    for (const language of LANGUAGES) {
      const texts = CATALOGUES[language];
      await page
        .getByRole("navigation", { name: switchName })
        .getByRole("link", { name: LANGUAGE_NAMES[language], exact: true })
        .click();
      await page.getByRole("heading", { level: 1, name: texts.inACall.title }).waitFor();
      await page.getByLabel(texts.widget.label).waitFor();
      // Only the new language's widget is on the page.
      expect(await page.locator("[data-callproof-widget]").count()).toBe(1);
      expect(await page.evaluate(() => document.documentElement.lang)).toBe(language === "en" ? "en-GB" : language);
      for (const v of await seriousViolations(page)) problems.push(`${language}: ${v}`);
      switchName = texts.inACall.languageLabel;
    }
    expect(problems).toEqual([]);
  });

  it("/in-a-call names the domain that vouches for the caller, or says that none does (N11)", async () => {
    suite.server.clock.set(Date.now());
    const proved = await createOrganisation(suite.server, {
      website: "https://www.acme-shop.example",
      companyName: "Acme",
      websiteProved: true,
    });
    const unproved = await createOrganisation(suite.server, {
      companyName: "Nobody Ltd",
      website: "https://nobody-elsewhere.example",
    });
    const ann = await createUser(suite.server, { organisationId: proved.id, fullName: "Ann Caller" });
    const ned = await createUser(suite.server, { organisationId: unproved.id, fullName: "Ned Caller" });
    const annWords = await storeCode(suite.server, ann.id);
    const nedWords = await storeCode(suite.server, ned.id);

    const page = await newPage();
    await page.goto("/in-a-call");
    const input = page.getByLabel(WIDGET_TEXT.label);
    await input.fill(annWords);
    await input.press("Enter");
    const result = page.getByRole("status").first();
    await expect.poll(() => result.textContent()).toContain("Verified: Ann Caller from Acme (www.acme-shop.example)");
    expect(await result.textContent()).toContain(
      fillIn(CATALOGUES.en.widget.vouchedBy, { domain: "www.acme-shop.example" }),
    );

    await input.fill(nedWords);
    await input.press("Enter");
    await expect.poll(() => result.textContent()).toContain("Verified: Ned Caller from Nobody Ltd");
    expect(await result.textContent()).toContain(CATALOGUES.en.widget.noDomain);
  });
});
