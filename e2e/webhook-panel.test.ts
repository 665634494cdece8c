/**
 * The employer dashboard's webhook panel (issue 18 N10, issue 19): an endpoint on the operator's own
 * network (loopback here, allowed by OUTBOUND_ALLOWED_HOSTS) receives the test event; a new URL after a
 * sign-in older than 15 minutes is refused with a message that says so and a way to sign in again.
 */
import { PASSKEY } from "@shared/account";
import { WEBHOOK_TEXT } from "@shared/webhooks";
import { createEmployer } from "@test/fixtures";
import { Receiver } from "@test/webhook-receiver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openEmployerSection, openSignedIn, PHONE, pathIs, seriousViolations, setUpBrowserSuite } from "./support";

const suite = setUpBrowserSuite({ NODE_ENV: "test", OUTBOUND_ALLOWED_HOSTS: "loopback" });
let receiver: Receiver;
beforeAll(async () => {
  receiver = await new Receiver().start();
});
afterAll(async () => {
  await receiver?.stop();
});

describe("the webhook panel", () => {
  it("delivers to a loopback receiver, and asks for a fresh sign-in before the URL moves", async () => {
    suite.server.clock.set(Date.now());
    const { user } = await createEmployer(suite.server);
    const page = await suite.newPage(PHONE);
    await openSignedIn(page, suite.server, user, "/employer-dashboard");
    await openEmployerSection(page, "Integrations");

    const field = page.getByLabel(WEBHOOK_TEXT.urlLabel);
    await field.fill(receiver.url);
    await page.getByRole("button", { name: WEBHOOK_TEXT.save }).click();
    await page.getByText(WEBHOOK_TEXT.saved).waitFor();
    await page.getByRole("button", { name: WEBHOOK_TEXT.sendTest }).click();
    const [got] = await receiver.waitFor(1);
    expect(JSON.parse(got?.body ?? "{}").type).toBe("webhook.test");
    await page.getByRole("cell", { name: WEBHOOK_TEXT.status.delivered }).waitFor();

    // Sixteen minutes later (still signed in), pointing the events elsewhere is refused, and the panel says why.
    suite.server.clock.advance(PASSKEY.recentSignInMs + 60_000);
    await field.fill(`http://localhost:${receiver.port}/elsewhere`);
    await page.getByRole("button", { name: WEBHOOK_TEXT.save }).click();
    const refusal = page.getByText(WEBHOOK_TEXT.needsRecentSignIn);
    await refusal.waitFor();
    expect(await field.getAttribute("aria-describedby")).toBeTruthy();
    const again = page.getByRole("button", { name: WEBHOOK_TEXT.signInAgain });
    await again.waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: "/tmp/callproof-webhook-recent-sign-in.png", fullPage: true });

    // The button ends the session; a new sign-in may move the URL.
    await again.click();
    await page.waitForURL(pathIs("/"));
    await openSignedIn(page, suite.server, user, "/employer-dashboard");
    await openEmployerSection(page, "Integrations");
    await page.getByLabel(WEBHOOK_TEXT.urlLabel).fill(`http://localhost:${receiver.port}/elsewhere`);
    await page.getByRole("button", { name: WEBHOOK_TEXT.save }).click();
    await page.getByText(WEBHOOK_TEXT.saved).waitFor();
  });
});
