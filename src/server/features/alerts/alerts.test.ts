import { alerts } from "@server/db/schema";
import { alertsAnswer } from "@shared/alerts";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { auditRows, createEmployer, freshIp, TRUST_PROXY_ENV, verify } from "@test/fixtures";
import { type Browser, buildTestApp, signIn, type TestApp } from "@test/helpers";
import { Receiver } from "@test/webhook-receiver";
import { count } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { raiseDueAlerts } from "./service";

// Deliveries to a receiver on loopback: the outbound policy allows it in tests.
const ENV = {
  ...TRUST_PROXY_ENV,
  NODE_ENV: "test",
  OUTBOUND_ALLOWED_HOSTS: "loopback",
};

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

/** An organisation whose superuser is signed in, with a webhook taking every event (secret returned). */
async function organisation() {
  const employer = await createEmployer(t);
  const browser = await signIn(t, employer.user.email);
  const saved = await browser.request("PUT", "/api/employer/webhook", { url: receiver.url });
  expect(saved.statusCode).toBe(200);
  return {
    ...employer,
    browser,
    secret: (saved.json() as { secret: string }).secret,
    site: `https://${employer.domain}`,
  };
}

/** `n` failed look-ups from `n` different addresses (or all from `ip`) on a page of `origin`. */
async function failedLookups(n: number, origin: string | undefined, ip?: string) {
  for (let i = 0; i < n; i++) {
    const res = await verify(t, "wrong wrong wrong", { origin, ip: ip ?? freshIp() });
    expect(res.json()).toMatchObject({ verified: false });
  }
}

function report(origin: string, callerNumber: string, ip = freshIp()) {
  return t.app.inject({
    method: "POST",
    url: "/api/reports",
    headers: { "content-type": "application/json", "x-forwarded-for": ip, origin },
    payload: JSON.stringify({ callerNumber, note: "Asked for my card PIN" }),
  });
}

/**
 * Runs the alerts job's work now and answers how many alerts exist in all: the job's own timer may have
 * raised one first, so tests look at what was raised, not at who raised it.
 */
async function raise() {
  await raiseDueAlerts(t.app.deps);
  const [row] = await t.database.db.select({ n: count() }).from(alerts);
  return row?.n ?? 0;
}

async function alertsOf(browser: Browser) {
  const res = await browser.get("/api/employer/alerts");
  expect(res.statusCode).toBe(200);
  return alertsAnswer.parse(res.json());
}

describe("alerts for the fraud team", () => {
  it("raises one failed-lookups alert at 20 addresses in 10 minutes: mail, signed alert.raised, dashboard row; not again within the hour", async () => {
    const org = await organisation();
    await failedLookups(19, org.site);
    expect(await raise()).toBe(0);
    expect((await alertsOf(org.browser)).recent).toEqual([]);

    await failedLookups(1, org.site);
    expect(await raise()).toBe(1);
    const { recent } = await alertsOf(org.browser);
    expect(recent).toHaveLength(1);
    const alert = recent[0]!;
    expect(alert).toMatchObject({ kind: "failed-lookups", count: 20 });
    expect(new Date(alert.windowEnd).getTime() - new Date(alert.windowStart).getTime()).toBe(10 * 60_000);

    const mail = await t.mail.waitFor(org.user.email, (m) => m.subject.startsWith("CallProof alert:"));
    expect(mail.text).toContain("20 failed checks");
    expect(mail.text).toContain(org.domain);
    expect(mail.text).not.toMatch(/\b10\.\d+\.\d+\.\d+\b/); // no customer address

    const [delivery] = await receiver.waitFor(1);
    const payload = new Webhook(org.secret).verify(delivery!.body, {
      "webhook-id": String(delivery!.headers["webhook-id"]),
      "webhook-timestamp": String(delivery!.headers["webhook-timestamp"]),
      "webhook-signature": String(delivery!.headers["webhook-signature"]),
    }) as { type: string; data: Record<string, unknown> };
    expect(payload.type).toBe("alert.raised");
    expect(payload.data).toEqual({
      id: alert.id,
      kind: "failed-lookups",
      count: 20,
      windowStart: alert.windowStart,
      windowEnd: alert.windowEnd,
    });

    // The 21st to 39th failures within the hour raise nothing more (the 40th would double it: see below).
    await failedLookups(19, org.site);
    t.clock.advance(5 * 60_000);
    expect(await raise()).toBe(1);
    expect((await alertsOf(org.browser)).recent).toHaveLength(1);
    expect(t.mail.to(org.user.email).filter((m) => m.subject.startsWith("CallProof alert:"))).toHaveLength(1);
    expect(await auditRows(t, AUDIT_ACTIONS.raiseAlert)).toHaveLength(1);
  });

  it("within the hour an alert is sent again each time its count doubles: same id, new count, mail and alert.raised", async () => {
    const org = await organisation();
    await failedLookups(20, org.site);
    expect(await raise()).toBe(1);
    const [first] = (await alertsOf(org.browser)).recent;
    expect(first).toMatchObject({ kind: "failed-lookups", count: 20 });
    await receiver.waitFor(1);
    // Half an hour later 20 more: only 20 in the last 10 minutes, but 40 since the alert's window began.
    t.clock.advance(30 * 60_000);
    const later = await signIn(t, org.user.email);
    await failedLookups(19, org.site);
    expect(await raise()).toBe(1);
    expect((await alertsOf(later)).recent).toMatchObject([{ id: first!.id, count: 20 }]);
    await failedLookups(1, org.site);
    expect(await raise()).toBe(1); // the same alert, grown
    const [grown] = (await alertsOf(later)).recent;
    expect(grown).toMatchObject({ id: first!.id, kind: "failed-lookups", count: 40, windowStart: first!.windowStart });
    expect(new Date(grown!.windowEnd).getTime()).toBe(t.clock.now().getTime());
    // (Signed like the first one; the test clock is half an hour ahead, so only its content is read here.)
    const second = (await receiver.waitFor(2))[1]!;
    const payload = JSON.parse(String(second.body));
    expect(payload).toMatchObject({ type: "alert.raised", data: { id: first!.id, count: 40 } });
    await t.mail.waitFor(org.user.email, (m) => m.subject.includes("40 failed checks"));
    const audited = await auditRows(t, AUDIT_ACTIONS.raiseAlert);
    expect(audited.map((a) => a.detail)).toEqual([
      { kind: "failed-lookups", count: 40, grownFrom: 20 },
      { kind: "failed-lookups", count: 20 },
    ]);
    // After the hour, a new alert.
    t.clock.advance(31 * 60_000);
    await failedLookups(20, org.site);
    expect(await raise()).toBe(2);
  });

  it("counts an IPv6 /48 once: 25 /64s of one home network raise nothing, 19 more networks then do", async () => {
    const org = await organisation();
    for (let i = 1; i <= 25; i++) await failedLookups(1, org.site, `2001:db8:5:${i.toString(16)}00::1`);
    expect(await raise()).toBe(0);
    await failedLookups(19, org.site);
    expect(await raise()).toBe(1);
    expect((await alertsOf(org.browser)).recent).toMatchObject([{ kind: "failed-lookups", count: 20 }]);
  });

  it("counts addresses, not requests, and only look-ups from the organisation's own verified sites", async () => {
    const org = await organisation();
    const other = await organisation();
    await failedLookups(3, org.site, freshIp()); // one address, 3 times
    await failedLookups(1, org.site, "2001:db8:7:7::1"); // one IPv6 /64, two addresses
    await failedLookups(1, org.site, "2001:db8:7:7::2");
    await failedLookups(25, undefined); // no Origin: a server-side call, nobody's site
    await failedLookups(25, other.site); // another organisation's site
    await failedLookups(25, "https://unknown-bank.example"); // nobody's site
    expect(await raise()).toBe(1);
    expect((await alertsOf(org.browser)).recent).toEqual([]);
    await org.browser.request("PUT", "/api/employer/alerts", { failedLookupsPer10Minutes: 2 });
    expect(await raise()).toBe(2);
    expect((await alertsOf(org.browser)).recent).toMatchObject([{ kind: "failed-lookups", count: 2 }]);
    expect((await alertsOf(other.browser)).recent).toMatchObject([{ kind: "failed-lookups", count: 25 }]);
  });

  it("counts only the last 10 minutes: failures spread over a longer time raise nothing", async () => {
    const org = await organisation();
    await failedLookups(10, org.site);
    t.clock.advance(11 * 60_000);
    await failedLookups(10, org.site);
    expect(await raise()).toBe(0);
  });

  it("raises a reports alert at 3 reports from different addresses in an hour", async () => {
    const org = await organisation();
    expect((await report(org.site, "+44 20 7946 0001")).statusCode).toBe(201);
    expect((await report(org.site, "+44 20 7946 0002")).statusCode).toBe(201);
    expect(await raise()).toBe(0);
    t.clock.advance(30 * 60_000);
    expect((await report(org.site, "+44 20 7946 0003")).statusCode).toBe(201);
    expect(await raise()).toBe(1);
    expect((await alertsOf(await signIn(t, org.user.email))).recent).toMatchObject([{ kind: "reports", count: 3 }]);
    const mail = await t.mail.waitFor(org.user.email, (m) => m.subject.startsWith("CallProof alert:"));
    expect(mail.subject).toContain("3 reported calls");
  });

  it("settings change the thresholds and can turn alerts off; bad values are refused and change nothing", async () => {
    const org = await organisation();
    expect((await alertsOf(org.browser)).settings).toEqual({
      enabled: true,
      failedLookupsPer10Minutes: 20,
      reportsPerHour: 3,
      deniedChecksPerHour: 1,
    });
    for (const bad of [
      { failedLookupsPer10Minutes: 0 },
      { failedLookupsPer10Minutes: 10_001 },
      { reportsPerHour: 2.5 },
      { reportsPerHour: "3" },
      { deniedChecksPerHour: 0 },
      { enabled: "yes" },
      { threshold: 5 },
    ]) {
      const res = await org.browser.request("PUT", "/api/employer/alerts", bad);
      expect(res.statusCode, JSON.stringify(bad)).toBe(400);
      expect(res.json().message).toEqual(expect.any(String));
    }
    expect((await alertsOf(org.browser)).settings.failedLookupsPer10Minutes).toBe(20);

    const saved = await org.browser.request("PUT", "/api/employer/alerts", { failedLookupsPer10Minutes: 5 });
    expect(saved.statusCode).toBe(200);
    expect(saved.json().settings).toEqual({
      enabled: true,
      failedLookupsPer10Minutes: 5,
      reportsPerHour: 3,
      deniedChecksPerHour: 1,
    });
    await failedLookups(5, org.site);
    expect(await raise()).toBe(1);

    await org.browser.request("PUT", "/api/employer/alerts", { enabled: false });
    expect((await alertsOf(org.browser)).settings).toEqual({
      enabled: false,
      failedLookupsPer10Minutes: 5,
      reportsPerHour: 3,
      deniedChecksPerHour: 1,
    });
    for (let i = 0; i < 3; i++) await report(org.site, `+44 20 7946 010${i}`);
    expect(await raise()).toBe(1);
    expect(await auditRows(t, AUDIT_ACTIONS.changeAlertSettings)).toHaveLength(2);
  });

  it("shows the most reported numbers of the last 30 days, compared by digits, once per reporting address", async () => {
    const org = await organisation();
    const ip = freshIp();
    await report(org.site, "+44 20 7946 0999", ip);
    await report(org.site, "+44 (0)20 7946 0999".replace("(0)", ""), ip); // the same address again
    await report(org.site, "+44-20-7946-0999");
    await report(org.site, "+44 20 7946 0999");
    await report(org.site, "+1 555 0100");
    const res = await org.browser.get("/api/employer/reports/top-numbers");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      { number: expect.stringMatching(/7946.?0999/), reports: 3 },
      { number: "+1 555 0100", reports: 1 },
    ]);
    t.clock.advance(31 * 24 * 3_600_000);
    const later = await signIn(t, org.user.email);
    expect((await later.get("/api/employer/reports/top-numbers")).json()).toEqual([]);
  });
});
