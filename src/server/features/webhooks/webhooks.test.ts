import type { Database } from "@server/db/client";
import { webhookDeliveries } from "@server/db/schema";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { WEBHOOK_EVENT_NAMES, WEBHOOK_TEXT } from "@shared/webhooks";
import { auditRows, createEmployer, freshIp, generate, TRUST_PROXY_ENV, tableText, verify } from "@test/fixtures";
import { buildTestApp, createUser, openAgain, signedIn, type TestApp } from "@test/helpers";
import { Receiver } from "@test/webhook-receiver";
import { Webhook } from "standardwebhooks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DELIVERY_ERROR } from "./sender";
import { retryDelayMs } from "./service";

const ENV = { ...TRUST_PROXY_ENV, NODE_ENV: "test", OUTBOUND_ALLOWED_HOSTS: "loopback" };

let t: TestApp;
let receiver: Receiver;
beforeEach(async () => {
  t = await buildTestApp({ env: ENV });
  receiver = await new Receiver().start();
});
afterEach(async () => {
  await receiver.stop();
  await t?.close();
});

async function employerWithWebhook(url = receiver.url, events?: string[]) {
  const employer = await createEmployer(t);
  const browser = await signedIn(t, employer.user);
  const res = await browser.request("PUT", "/api/employer/webhook", { url, ...(events ? { events } : {}) });
  expect(res.statusCode, res.body).toBe(200);
  return { ...employer, browser, secret: res.json().secret as string };
}

describe("PUT/GET/DELETE /api/employer/webhook", () => {
  it("sets the endpoint with a whsec_ secret shown once, stored only sealed", async () => {
    const employer = await createEmployer(t);
    const browser = await signedIn(t, employer.user);
    expect((await browser.get("/api/employer/webhook")).json()).toBeNull();
    const saved = await browser.request("PUT", "/api/employer/webhook", { url: receiver.url });
    expect(saved.json()).toEqual({
      url: receiver.url,
      events: [...WEBHOOK_EVENT_NAMES],
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const { secret } = saved.json();
    expect((await browser.get("/api/employer/webhook")).json()).toEqual({
      url: receiver.url,
      events: [...WEBHOOK_EVENT_NAMES],
      secretHint: secret.slice(-4),
      health: { state: "healthy", consecutiveFailures: 0, pausedUntil: null },
    });
    expect(await tableText(t, "webhook_endpoints")).not.toContain(secret.slice(6, 30));
    expect(JSON.stringify(await auditRows(t, AUDIT_ACTIONS.setWebhook))).not.toContain(secret.slice(6, 30));

    // Saving again issues a new secret; events can be narrowed.
    const again = await browser.request("PUT", "/api/employer/webhook", {
      url: receiver.url,
      events: ["call.reported"],
    });
    expect(again.json().secret).not.toBe(secret);
    expect(again.json().events).toEqual(["call.reported"]);

    expect((await browser.request("DELETE", "/api/employer/webhook")).statusCode).toBe(200);
    expect((await browser.get("/api/employer/webhook")).json()).toBeNull();
    expect((await browser.request("DELETE", "/api/employer/webhook")).statusCode).toBe(404);
  });

  it("refuses URLs that are not http(s), carry credentials, or are not URLs (the outbound policy: webhook-targets.test.ts)", async () => {
    const employer = await createEmployer(t);
    const browser = await signedIn(t, employer.user);
    const cases: Array<[unknown, number, string?]> = [
      [{ url: "ftp://hooks.example.com/x" }, 400, WEBHOOK_TEXT.urlNotHttps],
      [{ url: "https://user:pw@hooks.example.com/x" }, 400, WEBHOOK_TEXT.urlCredentials],
      [{ url: "not a url" }, 400, WEBHOOK_TEXT.urlInvalid],
      [{ url: `https://example.com/${"a".repeat(2000)}` }, 400, WEBHOOK_TEXT.urlTooLong],
      [{ url: "https://hooks.example.com", events: [] }, 400, WEBHOOK_TEXT.noEvents],
      [{ url: "https://hooks.example.com", events: ["code.deleted"] }, 400],
      [{}, 400],
    ];
    for (const [body, status, message] of cases) {
      const res = await browser.request("PUT", "/api/employer/webhook", body);
      expect(res.statusCode, JSON.stringify(body)).toBe(status);
      if (message) expect(res.json().message).toBe(message);
    }
    expect((await browser.get("/api/employer/webhook")).json()).toBeNull();
    expect((await browser.request("PUT", "/api/employer/webhook", { url: "http://localhost:9/x" })).statusCode).toBe(
      200,
    );
  });

  it("is for superusers only", async () => {
    const employer = await createEmployer(t);
    const employee = await createUser(t, { organisationId: employer.org.id });
    const browser = await signedIn(t, employee);
    expect((await browser.get("/api/employer/webhook")).statusCode).toBe(403);
    expect((await browser.request("PUT", "/api/employer/webhook", { url: receiver.url })).statusCode).toBe(403);
  });
});

describe("deliveries", () => {
  it("sends code.verified, signed as Standard Webhooks verifies it, at once", async () => {
    const { org, secret } = await employerWithWebhook();
    const employee = await createUser(t, { organisationId: org.id, fullName: "Eve Employee" });
    const code = await generate(await signedIn(t, employee));
    await verify(t, code.words.join(" "), { origin: `https://www.${org.domain}` });

    const [got] = await receiver.waitFor(1);
    const event = new Webhook(secret).verify(got!.body, got!.headers as Record<string, string>);
    expect(event).toEqual({
      type: "code.verified",
      timestamp: t.clock.now().toISOString(),
      data: {
        codeId: code.id,
        employee: { fullName: "Eve Employee", email: employee.email },
        site: `www.${org.domain}`,
        verifiedAt: t.clock.now().toISOString(),
      },
    });
    expect(got!.headers["webhook-id"]).toMatch(/^msg_[0-9a-f]{32}$/);
    // A tampered body does not verify.
    expect(() => new Webhook(secret).verify(`${got!.body} `, got!.headers as Record<string, string>)).toThrow();
  });

  it("sends call.reported only to an endpoint that takes it", async () => {
    const { org, secret, browser } = await employerWithWebhook(receiver.url, ["call.reported"]);
    const res = await t.app.inject({
      method: "POST",
      url: "/api/reports",
      headers: { "content-type": "application/json", origin: `https://${org.domain}` },
      payload: JSON.stringify({ callerNumber: "+1 555 0100", note: "<script>alert(1)</script>" }),
    });
    expect(res.statusCode).toBe(201);
    const [got] = await receiver.waitFor(1);
    expect(new Webhook(secret).verify(got!.body, got!.headers as Record<string, string>)).toMatchObject({
      type: "call.reported",
      data: { callerNumber: "+1 555 0100", claimedName: null, note: "<script>alert(1)</script>", site: org.domain },
    });
    // A verified code is not sent to this endpoint.
    const employee = await createUser(t, { organisationId: org.id });
    const code = await generate(await signedIn(t, employee));
    await verify(t, code.words.join(" "));
    const list = (await browser.get("/api/employer/webhook/deliveries")).json();
    expect(list.map((d: { eventType: string }) => d.eventType)).toEqual(["call.reported"]);
  });

  it("retries a receiver that answered 500 with the same webhook-id, after a growing delay", async () => {
    const { browser } = await employerWithWebhook();
    receiver.statuses = [500];
    expect((await browser.post("/api/employer/webhook/test")).statusCode).toBe(202);
    const [first] = await receiver.waitFor(1);
    await expect
      .poll(async () => (await browser.get("/api/employer/webhook/deliveries")).json()[0].lastStatus)
      .toBe(500);
    const deliveries = (await browser.get("/api/employer/webhook/deliveries")).json();
    expect(deliveries[0]).toMatchObject({ status: "pending", attempts: 1, lastError: DELIVERY_ERROR.notAccepted });
    expect(Date.parse(deliveries[0].nextAttemptAt) - t.clock.now().getTime()).toBe(retryDelayMs(1));

    // Not before its time (the worker has looked: a turn now); then once the clock reaches it.
    await t.app.deps.background.turn();
    expect(receiver.received).toHaveLength(1);
    t.clock.advance(retryDelayMs(1));
    const [, second] = await receiver.waitFor(2);
    expect(second!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
    await expect
      .poll(async () => (await browser.get("/api/employer/webhook/deliveries")).json()[0].status)
      .toBe("delivered");
    expect(retryDelayMs(2)).toBe(20_000);
    expect(retryDelayMs(20)).toBe(600_000);
  });

  it("gives up after 24 hours of failures", async () => {
    const { browser } = await employerWithWebhook();
    receiver.statuses = Array(100).fill(503);
    await browser.post("/api/employer/webhook/test");
    await receiver.waitFor(1);
    await expect
      .poll(async () => (await browser.get("/api/employer/webhook/deliveries")).json()[0].lastStatus)
      .toBe(503);
    t.clock.advance(24 * 3_600_000);
    await receiver.waitFor(2);
    // (the session has expired by then: read the outbox itself)
    await expect.poll(async () => (await t.database.db.select().from(webhookDeliveries))[0]?.status).toBe("failed");
    // A failed delivery is never tried again, however late: the worker looks once more a day later.
    t.clock.advance(24 * 3_600_000);
    await t.app.deps.background.turn();
    expect(receiver.received).toHaveLength(2);
  });
});

describe("the outbox across restarts and workers", () => {
  let extra: Array<{ app: TestApp; database: Database | null }> = [];
  afterEach(async () => {
    for (const e of extra) {
      await e.app.close();
      await e.database?.close();
    }
    extra = [];
  });

  /** Another app instance on the same database (its own pool and LISTEN connection on PostgreSQL). */
  async function instance() {
    const database = await openAgain(t.database);
    const app = await buildTestApp({ env: ENV, database: database ?? t.database, clock: t.clock });
    extra.push({ app, database });
    return app;
  }

  it("delivers an event queued while the receiver was down after a restart", async () => {
    const { browser } = await employerWithWebhook();
    const port = receiver.port;
    await receiver.stop();
    await browser.post("/api/employer/webhook/test");
    await expect.poll(async () => (await browser.get("/api/employer/webhook/deliveries")).json()[0].attempts).toBe(1);
    await t.app.close();

    receiver = await new Receiver().start(port);
    await instance();
    const [got] = await receiver.waitFor(1);
    expect(JSON.parse(got!.body).type).toBe("webhook.test");
  });

  it("sends each delivery once when several workers run", { timeout: 60_000 }, async () => {
    const { org } = await employerWithWebhook();
    const apps = [t, await instance(), await instance()];
    // 30 reports, each taken by one of the three instances; each instance's worker is woken by all.
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        apps[i % 3]!.app.inject({
          method: "POST",
          url: "/api/reports",
          headers: {
            "content-type": "application/json",
            origin: `https://${org.domain}`,
            "x-forwarded-for": freshIp(),
          },
          payload: JSON.stringify({ note: `report ${i}` }),
        }),
      ),
    );
    // One endpoint takes at most 4 deliveries at a time (fairness, N4): a burst of 30 goes out in turns.
    // On PGlite, a worker stalled by the in-process database can see a connection time out and try it again
    // 10 s later (at least once): the bound is generous, what this test checks is "each delivery once".
    await receiver.waitFor(30, 45_000);
    // Every instance's worker looks once more and finishes what it started: nothing is sent twice.
    // (A turn of the alert job raises the "reports" alert too: only the reports are counted.)
    for (const a of apps) await a.app.deps.background.turn();
    const ids = receiver.received
      .filter((r) => JSON.parse(r.body).type === "call.reported")
      .map((r) => r.headers["webhook-id"]);
    expect(ids).toHaveLength(30);
    expect(new Set(ids).size).toBe(30);
  });
});
