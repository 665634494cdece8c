/**
 * Single sign-on in the browser: a superuser connects the organisation on the employer dashboard, an
 * employee types their e-mail on /login, presses "Continue with single sign-on", signs in on the
 * identity provider's own page (a real oidc-provider on loopback) and lands on /dashboard signed in.
 */

import { ssoConnections } from "@server/db/schema";
import { SSO_TEXT } from "@shared/sso-texts";
import { createEmployer } from "@test/fixtures";
import { createUser } from "@test/helpers";
import { TestIdp } from "@test/oidc-provider";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openEmployerSection, pathIs, seriousViolations, setUpBrowserSuite, signInThroughUi } from "./support";

const suite = setUpBrowserSuite({ OUTBOUND_ALLOWED_HOSTS: "loopback" });
const { newPage } = suite;

let idp: TestIdp;
let employer: Awaited<ReturnType<typeof createEmployer>>;

beforeAll(async () => {
  idp = await new TestIdp().start(`${suite.server.url}/api/auth/sso/callback`);
  employer = await createEmployer(suite.server, { companyName: "Northwind Bank" });
});
afterAll(async () => {
  await idp?.stop();
});

describe("single sign-on", () => {
  it("a superuser connects the organisation on the Single sign-on panel (errors shown, secret write-only)", async () => {
    const page = await newPage();
    await signInThroughUi(page, suite.server, employer.user.email, employer.user.password, "/employer-dashboard");
    await openEmployerSection(page, "Integrations");
    const panel = page.getByRole("region", { name: SSO_TEXT.title });
    await panel.getByText(SSO_TEXT.intro).waitFor();
    await panel.getByText(`${suite.server.url}/api/auth/sso/callback`).waitFor();

    // An issuer spelled differently from its own discovery document: the check says so under the form.
    await panel.getByLabel(SSO_TEXT.issuerLabel).fill(`${idp.issuer}/`);
    await panel.getByLabel(SSO_TEXT.clientIdLabel).fill(idp.clientId);
    await panel.getByLabel(SSO_TEXT.clientSecretLabel).fill(idp.clientSecret);
    await panel.getByRole("button", { name: SSO_TEXT.save }).click();
    await panel.getByRole("alert").filter({ hasText: SSO_TEXT.issuerMismatch }).waitFor();

    await panel.getByLabel(SSO_TEXT.issuerLabel).fill(idp.issuer);
    await panel.getByLabel(SSO_TEXT.jitLabel).check();
    await panel.getByRole("button", { name: SSO_TEXT.save }).click();
    await panel.getByRole("status").filter({ hasText: SSO_TEXT.saved }).waitFor();
    expect(await panel.getByLabel(SSO_TEXT.clientSecretLabel).inputValue()).toBe("");
    await panel.getByText(SSO_TEXT.clientSecretHint(idp.clientSecret.slice(-4))).waitFor();
    expect(await page.content()).not.toContain(idp.clientSecret);

    await panel.scrollIntoViewIfNeeded();
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 800 });
      expect(await seriousViolations(page), `at ${width}px`).toEqual([]);
    }
    await page.setViewportSize({ width: 320, height: 800 });
    const sideways = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(sideways, "sideways scrolling at 320px").toBe(0);
  });

  it("an employee types their e-mail, continues with single sign-on, signs in at the provider and lands on /dashboard", async () => {
    const employee = await createUser(suite.server, {
      email: `dana@${employer.domain}`,
      organisationId: employer.org.id,
      fullName: "Dana Teller",
    });
    // The provider's development login page takes any login; the account is what is typed (the hint).
    idp.accounts.set(employee.email, { email: employee.email, email_verified: true, name: "Dana Teller" });

    const page = await newPage();
    await page.goto("/login");
    await page.getByLabel("Email").fill(employee.email);
    const button = page.getByRole("button", { name: SSO_TEXT.continueWithSso });
    await button.waitFor();
    await page.getByText(SSO_TEXT.ssoAvailable("Northwind Bank")).waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    await button.click();
    // The identity provider's own page.
    await page.waitForURL((url) => url.origin === idp.issuer);
    expect(await page.locator('input[name="login"]').inputValue()).toBe(employee.email);
    await page.locator('input[name="password"]').fill("anything");
    await page.getByRole("button", { name: "Sign-in" }).click();

    await page.waitForURL(pathIs("/dashboard"));
    await page.getByText("Dana Teller").first().waitFor();
    await page.getByRole("button", { name: "Sign Out" }).waitFor();
  });

  it("a link or a form on another site starts nothing: the signed-in person stays who they are", async () => {
    // The attacker holds an employee identity of the SSO organisation at its provider.
    const attacker = `mallory@${employer.domain}`;
    idp.accounts.set(attacker, { email: attacker, email_verified: true });
    const victim = await createEmployer(suite.server, { companyName: "Victim Ltd" });
    const page = await newPage();
    await signInThroughUi(page, suite.server, victim.user.email, victim.user.password, "/employer-dashboard");
    // Who the browser is signed in as (the same-origin call the app makes).
    const whoami = () =>
      page.evaluate(async () => {
        const res = await fetch("/api/auth/whoami");
        return res.ok ? ((await res.json()) as { role: string }).role : res.status;
      });

    // A link to the old start address: nothing starts, the provider is never reached.
    await page.goto(`/api/auth/sso/start?email=${encodeURIComponent(attacker)}`);
    expect(new URL(page.url()).origin).toBe(suite.server.url);
    expect(new URL(page.url()).pathname).not.toMatch(/^\/api\//);
    expect(await whoami()).toBe("superuser");

    // A form on another page posting to the start: refused before anything is written.
    await page.goto("about:blank");
    await page.setContent(
      `<form method="post" action="${suite.server.url}/api/auth/sso/start"><input name="email" value="${attacker}"><button>Go</button></form>`,
    );
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/api/auth/sso/start")),
      page.getByRole("button", { name: "Go" }).click(),
    ]);
    expect(answer.status()).toBe(403);
    expect(new URL(page.url()).origin).not.toBe(idp.issuer);
    await page.goto("/employer-dashboard");
    expect(await whoami()).toBe("superuser");
  });

  it("makes single sign-on the main action when the organisation requires it", async () => {
    await suite.server.database.db
      .update(ssoConnections)
      .set({ enforced: true })
      .where(eq(ssoConnections.organisationId, employer.org.id));
    const page = await newPage();
    await page.goto("/login");
    await page.getByLabel("Email").fill(`someone@${employer.domain}`);
    await page.getByText(SSO_TEXT.ssoRequired("Northwind Bank")).waitFor();
    const sso = page.getByRole("button", { name: SSO_TEXT.continueWithSso });
    expect(await sso.getAttribute("class")).toContain("button--primary");
    expect(await page.getByRole("button", { name: "Log In" }).getAttribute("class")).toContain("button--secondary");
    await page.getByText(SSO_TEXT.orUsePassword).waitFor();
    // Another domain: no offer, the password path as always.
    await page.getByLabel("Email").fill("someone@elsewhere.test");
    await expect.poll(() => sso.count()).toBe(0);
    expect(await page.getByRole("button", { name: "Log In" }).getAttribute("class")).toContain("button--primary");
  });

  it("shows a red message starting 'Single sign-on failed' with the reason when the sign-in failed", async () => {
    const page = await newPage();
    await page.goto("/login?sso=failed&reason=email-unverified");
    const alert = page.getByRole("alert");
    await alert.waitFor();
    expect(await alert.innerText()).toMatch(/^Single sign-on failed: your identity provider says your e-mail/);
    expect(await alert.evaluate((el) => getComputedStyle(el).color)).toBe("rgb(180, 35, 24)");
    expect(await seriousViolations(page)).toEqual([]);
  });
});
