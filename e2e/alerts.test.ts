/**
 * The fraud team's view on the employer dashboard: alert settings with their validation, an alert raised
 * by a burst of failed checks on the organisation's own site, and the most reported numbers.
 */
import { raiseDueAlerts } from "@server/features/alerts/service";
import { ALERTS_TEXT } from "@shared/alerts";
import { createEmployer, freshIp, verify } from "@test/fixtures";
import { describe, it } from "vitest";
import { openEmployerSection, openSignedIn, PHONE, setUpBrowserSuite } from "./support";

const suite = setUpBrowserSuite({ TRUST_PROXY: "127.0.0.1" });

describe("alerts on the employer dashboard", () => {
  it("saves thresholds (refusing a bad one), lists a raised alert and the most reported numbers", async () => {
    suite.server.clock.set(Date.now());
    const { user, domain } = await createEmployer(suite.server);
    const site = `https://${domain}`;
    for (const number of ["+44 20 7946 0123", "+44 20-7946-0123"]) {
      await suite.server.app.inject({
        method: "POST",
        url: "/api/reports",
        headers: { "content-type": "application/json", "x-forwarded-for": freshIp(), origin: site },
        payload: JSON.stringify({ callerNumber: number }),
      });
    }

    const page = await suite.newPage(PHONE);
    await openSignedIn(page, suite.server, user, "/employer-dashboard");
    await openEmployerSection(page, "Fraud and reports");
    const alerts = page.getByRole("region", { name: ALERTS_TEXT.title, exact: true });
    await alerts.getByText(ALERTS_TEXT.none).waitFor();

    const threshold = alerts.getByLabel(ALERTS_TEXT.failedLookupsLabel);
    await threshold.fill("0");
    await alerts.getByRole("button", { name: ALERTS_TEXT.save }).click();
    await alerts.getByText(ALERTS_TEXT.invalidThreshold).waitFor();
    await threshold.fill("3");
    await alerts.getByRole("button", { name: ALERTS_TEXT.save }).click();
    await alerts.getByRole("status").filter({ hasText: ALERTS_TEXT.saved }).waitFor();

    for (let i = 0; i < 3; i++) await verify(suite.server, "wrong wrong wrong", { origin: site });
    await raiseDueAlerts(suite.server.app.deps); // (or the job's own timer already did)
    await page.reload();
    await alerts.getByRole("row", { name: new RegExp(`${ALERTS_TEXT.kinds["failed-lookups"]}.*3`) }).waitFor();

    const top = page.getByRole("region", { name: ALERTS_TEXT.topNumbersTitle, exact: true });
    await top.getByRole("row", { name: /\+44 20.7946.0123 2/ }).waitFor();
  });
});
