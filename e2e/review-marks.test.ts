/**
 * What issue 18's fixes show on the dashboards: the employer's webhook panel says when the endpoint is paused
 * by its circuit breaker (and "Send test event" is still there), and the admins' list marks a report whose
 * Origin no organisation proved as "unverified origin". Both at phone and desktop width, without a serious
 * axe violation.
 */
import { webhookEndpoints } from "@server/db/schema";
import { REPORTS_TEXT } from "@shared/reports";
import { WEBHOOK_TEXT } from "@shared/webhooks";
import { createEmployer, freshIp } from "@test/fixtures";
import { createUser, signIn } from "@test/helpers";
import { eq } from "drizzle-orm";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { DESKTOP, openEmployerSection, openSignedIn, PHONE, seriousViolations, setUpBrowserSuite } from "./support";

const suite = setUpBrowserSuite({ TRUST_PROXY: "127.0.0.1", OUTBOUND_ALLOWED_HOSTS: "loopback" });

/** axe-core's serious and critical violations at phone and desktop width. */
async function violationsAtBothWidths(page: Page): Promise<string[]> {
  const found: string[] = [];
  for (const size of [PHONE, DESKTOP]) {
    await page.setViewportSize(size);
    for (const v of await seriousViolations(page)) found.push(`${size.width}px ${v}`);
  }
  return found;
}

describe("the review's marks on the dashboards", () => {
  it("the webhook panel shows an endpoint paused by its circuit breaker", async () => {
    suite.server.clock.set(Date.now());
    const { user, org } = await createEmployer(suite.server);
    const api = await signIn(suite.server, user.email, user.password, freshIp());
    expect((await api.request("PUT", "/api/employer/webhook", { url: "http://127.0.0.1:9/hooks" })).statusCode).toBe(
      200,
    );
    // As the breaker leaves it after 5 failures in a row (webhooks/fairness.test.ts opens it for real).
    await suite.server.database.db
      .update(webhookEndpoints)
      .set({ consecutiveFailures: 5, pausedUntil: new Date(suite.server.clock.now().getTime() + 60_000) })
      .where(eq(webhookEndpoints.organisationId, org.id));

    const page = await suite.newPage(PHONE);
    await openSignedIn(page, suite.server, user, "/employer-dashboard");
    await openEmployerSection(page, "Integrations");
    const panel = page.getByRole("region", { name: WEBHOOK_TEXT.healthTitle });
    await panel
      .getByRole("alert")
      .filter({ hasText: /^Paused: the endpoint failed 5 times in a row/ })
      .waitFor();
    await page.getByRole("button", { name: WEBHOOK_TEXT.sendTest }).waitFor();
    expect(await violationsAtBothWidths(page)).toEqual([]);
  });

  it('the admins\' list marks a report whose Origin no organisation proved "unverified origin"', async () => {
    for (const origin of ["https://bigbank.example", suite.server.config.publicOrigin]) {
      await suite.server.app.inject({
        method: "POST",
        url: "/api/reports",
        headers: { "content-type": "application/json", "x-forwarded-for": freshIp(), origin },
        payload: JSON.stringify({ note: `from ${origin}` }),
      });
    }
    const admin = await createUser(suite.server, { role: "admin" });
    const page = await suite.newPage(DESKTOP);
    await openSignedIn(page, suite.server, admin, "/admin");
    const forged = page.getByRole("row", { name: /from https:\/\/bigbank\.example/ });
    await forged.getByText(REPORTS_TEXT.unverifiedOrigin, { exact: true }).waitFor();
    const real = page.getByRole("row", { name: new RegExp(`from ${suite.server.config.publicOrigin}`) });
    await real.waitFor();
    expect(await real.getByText(REPORTS_TEXT.unverifiedOrigin).count()).toBe(0);
    expect(await violationsAtBothWidths(page)).toEqual([]);
  });
});
