import { webhookDeliveries } from "@server/db/schema";
import { OUTBOUND_TEXT } from "@server/lib/outbound";
import { PASSKEY } from "@shared/account";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { ERROR_CODES } from "@shared/error-codes";
import { WEBHOOK_TEXT, type WebhookDelivery } from "@shared/webhooks";
import { auditRows, createEmployer, TRUST_PROXY_ENV } from "@test/fixtures";
import { buildTestApp, signedIn, type TestApp } from "@test/helpers";
import { Receiver } from "@test/webhook-receiver";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DELIVERY_ERROR } from "./sender";

/**
 * Where webhooks may go (OUTBOUND_ALLOWED_HOSTS, issue 19) and the webhook hygiene of issue 18 N10:
 * refusals by the policy fail at once with the reason, ports 443 and 80 only unless the operator allows
 * the host, failure texts that reveal no port or status, and a recent sign-in to point the events elsewhere.
 */

const envWith = (outbound: string) => ({ ...TRUST_PROXY_ENV, NODE_ENV: "test", OUTBOUND_ALLOWED_HOSTS: outbound });

let t: TestApp;
let receiver: Receiver;
let others: TestApp[] = [];
beforeEach(async () => {
  receiver = await new Receiver().start();
});
afterEach(async () => {
  for (const o of others) await o.app.close();
  others = [];
  await receiver.stop();
  await t?.close();
});

/** A superuser signed in on `app`, with the app's webhook API. */
async function superuser(app: TestApp) {
  const employer = await createEmployer(app);
  const browser = await signedIn(app, employer.user);
  const put = (url: string, events?: string[]) =>
    browser.request("PUT", "/api/employer/webhook", { url, ...(events ? { events } : {}) });
  const deliveries = async () => (await browser.get("/api/employer/webhook/deliveries")).json() as WebhookDelivery[];
  return { ...employer, browser, put, deliveries };
}

describe("with OUTBOUND_ALLOWED_HOSTS=loopback", () => {
  beforeEach(async () => {
    t = await buildTestApp({ env: envWith("loopback") });
  });

  it("takes http and any port on loopback, by address or as localhost, and delivers there", async () => {
    const boss = await superuser(t);
    for (const url of [receiver.url, `http://localhost:${receiver.port}/hooks`]) {
      const saved = await boss.put(url);
      expect(saved.statusCode, saved.body).toBe(200);
      expect((await boss.browser.post("/api/employer/webhook/test")).statusCode).toBe(202);
    }
    const got = await receiver.waitFor(2);
    expect(got.map((r) => JSON.parse(r.body).type)).toEqual(["webhook.test", "webhook.test"]);
    expect(got[1]?.headers.host).toBe(`localhost:${receiver.port}`);
    await expect.poll(async () => (await boss.deliveries()).map((d) => d.status)).toEqual(["delivered", "delivered"]);
  });

  it("still refuses private, link-local and metadata addresses at once", async () => {
    const boss = await superuser(t);
    for (const url of [
      "https://10.1.2.3/hooks",
      "https://192.168.0.5/hooks",
      "https://169.254.169.254/latest/meta-data/",
      "https://[fd00:ec2::254]/",
      "https://100.100.100.200/",
      "https://[::ffff:169.254.169.254]/",
    ]) {
      const res = await boss.put(url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json()).toEqual({ message: WEBHOOK_TEXT.urlPrivate, code: ERROR_CODES.webhookInvalidUrl });
    }
    expect((await boss.browser.get("/api/employer/webhook")).json()).toBeNull();
  });

  it("tells the employer 'could not connect' or 'not accepted', never the port or the status, and retries", async () => {
    const boss = await superuser(t);
    const closed = await new Receiver().start();
    await closed.stop();
    expect((await boss.put(`http://127.0.0.1:${closed.port}/hooks`)).statusCode).toBe(200);
    await boss.browser.post("/api/employer/webhook/test");
    await expect.poll(async () => (await boss.deliveries())[0]?.lastError).toBe(DELIVERY_ERROR.unreachable);
    const [unreachable] = await boss.deliveries();
    expect(unreachable).toMatchObject({ status: "pending", attempts: 1, lastStatus: null });
    expect(unreachable?.lastError).not.toContain(String(closed.port));

    expect((await boss.put(receiver.url)).statusCode).toBe(200);
    receiver.statuses = [500];
    await boss.browser.post("/api/employer/webhook/test");
    await receiver.waitFor(1);
    await expect
      .poll(async () => (await boss.deliveries()).find((d) => d.lastError === DELIVERY_ERROR.notAccepted)?.status)
      .toBe("pending");
    expect(JSON.stringify((await boss.deliveries()).map((d) => d.lastError))).not.toMatch(/500|\d{4,}/);
  });
});

describe("without OUTBOUND_ALLOWED_HOSTS (external only)", () => {
  beforeEach(async () => {
    t = await buildTestApp({ env: envWith("external") });
  });

  it("refuses loopback and private targets when the URL is saved, with the reason", async () => {
    const boss = await superuser(t);
    const cases: Array<[string, string]> = [
      [receiver.url, WEBHOOK_TEXT.urlNotHttps],
      [`https://127.0.0.1:${receiver.port}/hooks`, WEBHOOK_TEXT.urlPort],
      ["https://127.0.0.1/hooks", WEBHOOK_TEXT.urlPrivate],
      ["https://[::1]/hooks", WEBHOOK_TEXT.urlPrivate],
      ["https://10.1.2.3/hooks", WEBHOOK_TEXT.urlPrivate],
      ["https://172.16.0.9/hooks", WEBHOOK_TEXT.urlPrivate],
      ["https://100.64.0.1/hooks", WEBHOOK_TEXT.urlPrivate],
      ["https://[fd12::1]/hooks", WEBHOOK_TEXT.urlPrivate],
      ["https://169.254.169.254/latest/meta-data/", WEBHOOK_TEXT.urlPrivate],
      ["https://[64:ff9b::a9fe:a9fe]/", WEBHOOK_TEXT.urlPrivate],
      // Names that resolve to a refused address.
      ["https://localhost/hooks", WEBHOOK_TEXT.urlPrivate],
      ["https://hooks.localhost/hooks", WEBHOOK_TEXT.urlPrivate],
      ["https://hooks.example.com:8443/x", WEBHOOK_TEXT.urlPort],
    ];
    for (const [url, message] of cases) {
      const res = await boss.put(url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().message, url).toBe(message);
    }
    expect((await boss.browser.get("/api/employer/webhook")).json()).toBeNull();
    expect(receiver.received).toEqual([]);
  });

  it("fails a delivery the policy refuses at once, with the reason, instead of retrying it for 24 hours", async () => {
    // The endpoint was saved while the operator allowed loopback; then the policy was narrowed.
    const before = await buildTestApp({ env: envWith("loopback"), database: t.database, clock: t.clock });
    others.push(before);
    await t.app.close();
    const boss = await superuser(before);
    expect((await boss.put("https://localhost/hooks")).statusCode).toBe(200);
    await before.app.close();

    const after = await buildTestApp({ env: envWith("external"), database: t.database, clock: t.clock });
    others.push(after);
    const browser = await signedIn(after, boss.user);
    expect((await browser.post("/api/employer/webhook/test")).statusCode).toBe(202);
    await expect
      .poll(
        async () => ((await browser.get("/api/employer/webhook/deliveries")).json() as WebhookDelivery[])[0]?.status,
      )
      .toBe("failed");
    const [failed] = (await browser.get("/api/employer/webhook/deliveries")).json() as WebhookDelivery[];
    expect(failed).toMatchObject({ attempts: 1, lastStatus: null, nextAttemptAt: null });
    expect(failed?.lastError).toBe(OUTBOUND_TEXT.address);
    expect(receiver.received).toEqual([]);
    // Nothing is left to retry.
    t.clock.advance(60 * 60_000);
    const rows = await t.database.db.select().from(webhookDeliveries);
    expect(rows.map((r) => r.status)).toEqual(["failed"]);
  });
});

describe("operator entries", () => {
  it("`*` opens public and private addresses over https on 443 and 80, but never the metadata address", async () => {
    t = await buildTestApp({ env: envWith("*") });
    const boss = await superuser(t);
    expect((await boss.put("https://10.1.2.3/hooks")).statusCode).toBe(200);
    expect((await boss.put("https://127.0.0.1:80/hooks")).statusCode).toBe(200);
    expect((await boss.put("http://10.1.2.3/hooks")).json().message).toBe(WEBHOOK_TEXT.urlNotHttps);
    expect((await boss.put("https://10.1.2.3:8443/hooks")).json().message).toBe(WEBHOOK_TEXT.urlPort);
    expect((await boss.put("https://169.254.169.254/")).json().message).toBe(WEBHOOK_TEXT.urlPrivate);
  });

  it("a metadata address listed by address, a range, or a private network allow http and any port", async () => {
    t = await buildTestApp({ env: envWith("169.254.169.254,192.168.0.0/16,private") });
    const boss = await superuser(t);
    for (const url of ["http://169.254.169.254:8080/x", "http://192.168.7.7:9000/x", "http://10.0.0.8:8080/x"])
      expect((await boss.put(url)).statusCode, url).toBe(200);
    expect((await boss.put("https://169.254.169.253/")).json().message).toBe(WEBHOOK_TEXT.urlPrivate);
  });
});

describe("changing the webhook URL", () => {
  beforeEach(async () => {
    t = await buildTestApp({ env: envWith("loopback") });
  });

  it("needs a sign-in from the last 15 minutes; events and the same URL do not", async () => {
    const boss = await superuser(t);
    expect((await boss.put(receiver.url)).statusCode).toBe(200);
    t.clock.advance(PASSKEY.recentSignInMs - 60_000);
    await boss.browser.get("/api/auth/whoami");
    t.clock.advance(2 * 60_000);

    const moved = await boss.put(`http://localhost:${receiver.port}/elsewhere`);
    expect(moved.statusCode).toBe(403);
    expect(moved.json()).toEqual({
      message: WEBHOOK_TEXT.needsRecentSignIn,
      code: ERROR_CODES.recentSignInRequired,
    });
    expect((await boss.browser.get("/api/employer/webhook")).json()).toMatchObject({ url: receiver.url });
    const denied = (await auditRows(t, AUDIT_ACTIONS.setWebhook)).filter((r) => r.outcome === "denied");
    expect(denied).toHaveLength(1);
    expect(denied[0]).toMatchObject({ organisationId: boss.org.id });

    // The same URL (a new secret, other events) is no change of destination.
    expect((await boss.put(receiver.url, ["call.reported"])).statusCode).toBe(200);
    // A fresh sign-in may move it.
    const fresh = await signedIn(t, boss.user);
    const res = await fresh.request("PUT", "/api/employer/webhook", {
      url: `http://localhost:${receiver.port}/elsewhere`,
    });
    expect(res.statusCode, res.body).toBe(200);
  });
});
