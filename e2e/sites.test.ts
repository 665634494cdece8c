import { SITE_PROOF } from "@shared/sites";
import { TestDnsServer } from "@test/dns-server";
import { createEmployer } from "@test/fixtures";
import { afterAll, describe, expect, it } from "vitest";
import { openEmployerSection, openSignedIn, PHONE, setUpBrowserSuite } from "./support";

// A real DNS server on loopback answers the server's site checks.
const dns = await new TestDnsServer().start();
const suite = setUpBrowserSuite({ NODE_ENV: "test", SITE_DNS_SERVERS: dns.address });
afterAll(async () => {
  await dns.close();
});

describe("the employer dashboard's Sites section", () => {
  it("adds a host, shows both proofs, checks the DNS record and shows the host verified", async () => {
    const { user, domain } = await createEmployer(suite.server);
    const page = await suite.newPage(PHONE);
    await openSignedIn(page, suite.server, user, "/employer-dashboard");
    await openEmployerSection(page, "Sites and widget");

    const sites = page.getByRole("region", { name: "Sites" });
    const list = sites.getByRole("list", { name: "Your sites" });
    await expect.poll(() => list.getByRole("listitem").count()).toBe(2);
    await expect
      .poll(() => list.getByRole("listitem").first().textContent())
      .toContain("Verified by your email domain");

    const host = `shop-${Date.now().toString(36)}.partner.example`;
    await sites.getByLabel("Add a site").fill(`https://${host}/`);
    await sites.getByRole("button", { name: "Add site" }).click();
    const item = list.getByRole("listitem").filter({ has: page.getByRole("heading", { name: host }) });
    await item.getByText("Pending: not proved yet").waitFor();

    // Both proofs are spelled out, with copyable values.
    const dnsName = SITE_PROOF.dnsName(host);
    await item.getByText(dnsName, { exact: true }).waitFor();
    await item.getByText(SITE_PROOF.fileUrl(host), { exact: true }).waitFor();
    const value = (await item.locator("code", { hasText: "callproof-site-verification=" }).textContent()) ?? "";
    expect(value).toMatch(/^callproof-site-verification=[0-9a-f]{32}$/);
    await expect.poll(() => item.getByRole("button", { name: /^Copy/ }).count()).toBe(3);

    // Nothing published yet: the check says so.
    await item.getByRole("button", { name: `Check now ${host}` }).click();
    await item.getByRole("alert").filter({ hasText: "No proof found yet" }).waitFor();

    dns.setTxt(dnsName, [value]);
    await item.getByRole("button", { name: `Check now ${host}` }).click();
    await item.getByText("Verified by DNS record").waitFor();
    await page
      .getByRole("status")
      .filter({ hasText: `${host} is verified.` })
      .waitFor();
    expect(await item.getByText(SITE_PROOF.fileUrl(host)).count()).toBe(0);

    // Nothing overflows a phone's width.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    // The e-mail domain cannot be removed, the new site can.
    expect(await list.getByRole("button", { name: `Remove ${domain}` }).count()).toBe(0);
    await page.screenshot({ path: "/tmp/callproof-sites-phone.png", fullPage: true });
  });

  it("sends a change again once when the CSRF token was stale, and it goes through", async () => {
    const { user } = await createEmployer(suite.server);
    const page = await suite.newPage(PHONE);
    await openSignedIn(page, suite.server, user, "/employer-dashboard");
    await openEmployerSection(page, "Sites and widget");
    const sites = page.getByRole("region", { name: "Sites" });
    const list = sites.getByRole("list", { name: "Your sites" });
    await expect.poll(() => list.getByRole("listitem").count()).toBe(2);

    // A token from another session (as after signing in elsewhere): refused, then sent again with the new one.
    await page.context().addCookies([{ name: "XSRF-TOKEN", value: "stale.0000", url: suite.server.url }]);
    const answers: number[] = [];
    page.on("response", (response) => {
      if (response.url().endsWith("/api/employer/sites") && response.request().method() === "POST") {
        answers.push(response.status());
      }
    });
    const host = `retry-${Date.now().toString(36)}.partner.example`;
    await sites.getByLabel("Add a site").fill(host);
    await sites.getByRole("button", { name: "Add site" }).click();
    await list.getByRole("heading", { name: host }).waitFor();
    expect(answers).toEqual([403, 201]);
    expect(await sites.getByRole("alert").count()).toBe(0);
  });
});
