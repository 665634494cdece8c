/**
 * The access-code panel when the stored code does not open for the organisation (issue 32, M2): another
 * organisation's sealed webhook secret copied into its row is never shown; the panel says the code cannot be shown.
 */
import { EMPLOYER_MESSAGES } from "@shared/employer";
import { createEmployer } from "@test/fixtures";
import { Receiver } from "@test/webhook-receiver";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSignedIn, PHONE, seriousViolations, setUpBrowserSuite } from "./support";

const suite = setUpBrowserSuite({ NODE_ENV: "test", OUTBOUND_ALLOWED_HOSTS: "loopback" });
let receiver: Receiver;
beforeAll(async () => {
  receiver = await new Receiver().start();
});
afterAll(async () => {
  await receiver?.stop();
});

describe("the access-code panel", () => {
  it("shows why a code cannot be shown, never another organisation's secret", async () => {
    suite.server.clock.set(Date.now());
    const a = await createEmployer(suite.server);
    const b = await createEmployer(suite.server);
    const pageA = await suite.newPage(PHONE);
    await openSignedIn(pageA, suite.server, a.user, "/employer-dashboard");
    const saved = await pageA.request.put("/api/employer/webhook", {
      data: { url: receiver.url },
      headers: { "x-xsrf-token": await xsrf(pageA) },
    });
    expect(saved.status()).toBe(200);
    const secret = (await saved.json()).secret as string;

    const page = await suite.newPage(PHONE);
    await openSignedIn(page, suite.server, b.user, "/employer-dashboard");
    await page.getByLabel("Required users").fill("2");
    await page.getByRole("button", { name: "Generate Access Code" }).click();
    await page.getByText("Access Code:").waitFor();

    await suite.server.database.db.rows(sql`
      update employee_access_codes set code_sealed =
        (select secret_sealed from webhook_endpoints where organisation_id = ${a.org.id})
      where organisation_id = ${b.org.id}`);
    await page.reload();
    await page.getByText(EMPLOYER_MESSAGES.accessCodeUnreadable).waitFor();
    expect(await page.content()).not.toContain(secret);
    expect(await page.getByText("Access Code:").count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
  });
});

async function xsrf(page: import("playwright-core").Page) {
  const cookies = await page.context().cookies();
  return cookies.find((c) => c.name === "XSRF-TOKEN")?.value ?? "";
}
