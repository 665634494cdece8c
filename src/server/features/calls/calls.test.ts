import { auditLog, calls, customerChecks, webhookDeliveries } from "@server/db/schema";
import { raiseDueAlerts } from "@server/features/alerts/service";
import { deactivateOrganisation } from "@server/features/organisations";
import { retryDelayMs } from "@server/features/webhooks/service";
import { API_KEY_TEXT, type ApiKeyScope } from "@shared/api-keys";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { CALL_LIMITS, CALLS_TEXT } from "@shared/calls";
import { openEventStream } from "@test/event-stream";
import { createEmployee, createEmployer, TRUST_PROXY_ENV } from "@test/fixtures";
import { buildTestApp, signIn, type TestApp } from "@test/helpers";
import { Receiver } from "@test/webhook-receiver";
import { eq, isNull, sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CALL_EVENTS_CHANNEL, callStatusOf, callsFeature, customerHash } from "./index";
import { applyCallsRetention } from "./service";

const ENV = { ...TRUST_PROXY_ENV, NODE_ENV: "test", OUTBOUND_ALLOWED_HOSTS: "loopback" };
/** A reference no other text in a test holds, so finding it anywhere is a leak. */
const REF = "CUST-7f3a9Q!x~42";

let t: TestApp;
let receiver: Receiver;
let logs: string[];
let notices: string[];
beforeEach(async () => {
  logs = [];
  notices = [];
  t = await buildTestApp({ env: ENV, listen: true, log: (line) => logs.push(line) });
  receiver = await new Receiver().start();
  await t.app.deps.notifications.listen(CALL_EVENTS_CHANNEL, (payload) => notices.push(payload));
});
afterEach(async () => {
  await receiver.stop();
  await t?.close();
});

/** An organisation with a webhook, a signed-in superuser, employees and keys. */
async function organisation(scopes: Record<string, ApiKeyScope[]> = {}) {
  const employer = await createEmployer(t, { companyName: "Globex" });
  const ada = await createEmployee(t, employer.org.id, employer.domain, { fullName: "Ada Lovelace" });
  const boss = await signIn(t, employer.user.email);
  const hook = await boss.request("PUT", "/api/employer/webhook", { url: receiver.url });
  expect(hook.statusCode, hook.body).toBe(200);
  const keys: Record<string, string> = {};
  for (const [name, s] of Object.entries(scopes)) {
    const res = await boss.post("/api/employer/api-keys", { name, scopes: s });
    expect(res.statusCode, res.body).toBe(201);
    keys[name] = res.json().key;
  }
  return { ...employer, ada, boss, keys, secret: hook.json().secret as string };
}

function api(key: string | null, method: "GET" | "POST", url: string, body?: unknown, ip = "192.0.2.10") {
  return t.app.inject({
    method,
    url,
    headers: { "x-forwarded-for": ip, ...(key ? { authorization: `Bearer ${key}` } : {}) },
    ...(body !== undefined ? { payload: body as object } : {}),
  });
}

type Delivered = { type: string; data: Record<string, unknown> & { sequence?: number } };

/** The signed deliveries of the receiver, verified with the endpoint's secret. */
function delivered(secret: string): Delivered[] {
  return receiver.received.map(
    (r) => new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as Delivered,
  );
}

async function waitForEvent(secret: string, type: string, count = 1) {
  for (;;) {
    const found = delivered(secret).filter((d) => d.type === type);
    if (found.length >= count) return found;
    await receiver.waitFor(receiver.received.length + 1, 15_000);
  }
}

/** Nothing in the database, logs or notifications holds the reference in clear. */
async function expectNoLeak(ref = REF) {
  const tables = ["calls", "customer_checks", "webhook_deliveries", "audit_log", "rate_limits", "call_status_tokens"];
  for (const table of tables) {
    const rows = await t.database.db.execute(sql`select * from ${sql.identifier(table)}`);
    expect(JSON.stringify(rows), table).not.toContain(ref);
  }
  expect(logs.join("\n")).not.toContain(ref);
  expect(notices.join("\n")).not.toContain(ref);
  expect(notices.length).toBeGreaterThan(0);
}

describe("the dialler's calls (/api/v1)", () => {
  it("start, renew, check, answer and end, with signed webhooks in sequence; the reference never at rest in clear", async () => {
    const org = await organisation({ dialler: ["calls:write", "calls:read"], app: ["checks:answer", "calls:read"] });
    const body = { employeeEmail: org.ada.email, customerRef: REF, direction: "outbound" };
    const started = await api(org.keys.dialler!, "POST", "/api/v1/calls", body);
    expect(started.statusCode, started.body).toBe(201);
    const call = started.json();
    expect(call).toMatchObject({
      id: expect.stringMatching(/^call_[A-Za-z0-9_-]{22}$/),
      customerRef: REF,
      direction: "outbound",
      employee: { fullName: "Ada Lovelace", email: org.ada.email },
    });
    // the same body renews the same call
    t.clock.advance(60_000);
    const renewed = await api(org.keys.dialler!, "POST", "/api/v1/calls", body);
    expect(renewed.statusCode, renewed.body).toBe(200);
    expect(renewed.json().id).toBe(call.id);
    expect(Date.parse(renewed.json().endsAt)).toBe(t.clock.now().getTime() + CALL_LIMITS.renewWithinMs);

    const hash = customerHash(t.config.appSecret, org.org.id, REF);
    const status = await callStatusOf(t.app.deps.db, org.org.id, hash, t.clock.now());
    expect(status.calling.map((c) => c.callId)).toEqual([call.id]);

    const check = await api(org.keys.dialler!, "POST", `/api/v1/calls/${call.id}/customer-check`);
    expect(check.statusCode, check.body).toBe(201);
    expect(check.json()).toMatchObject({ status: "pending" });
    const checkId = check.json().id as string;
    // a second pending check for the customer: 409
    expect((await api(org.keys.dialler!, "POST", `/api/v1/calls/${call.id}/customer-check`)).statusCode).toBe(409);

    const answered = await api(org.keys.app!, "POST", `/api/v1/customer-checks/${checkId}`, { answer: "confirmed" });
    expect(answered.statusCode, answered.body).toBe(200);
    expect(answered.json()).toEqual({ id: checkId, status: "confirmed" });
    // answered once
    const again = await api(org.keys.app!, "POST", `/api/v1/customer-checks/${checkId}`, { answer: "denied" });
    expect(again.statusCode).toBe(409);
    const read = await api(org.keys.dialler!, "GET", `/api/v1/customer-checks/${checkId}`);
    expect(read.json()).toMatchObject({ id: checkId, callId: call.id, status: "confirmed" });
    expect(read.json().answeredVia).toMatch(/^api:cpk_/);

    expect((await api(org.keys.dialler!, "POST", `/api/v1/calls/${call.id}/end`)).statusCode).toBe(200);
    expect((await callStatusOf(t.app.deps.db, org.org.id, hash, t.clock.now())).calling).toEqual([]);

    const [endedEvent] = await waitForEvent(org.secret, "call.ended");
    const events = delivered(org.secret).filter((d) => d.type !== "webhook.test");
    const types = events.map((e) => e.type);
    expect(types).toEqual(
      expect.arrayContaining(["call.started", "customer-check.requested", "customer-check.answered", "call.ended"]),
    );
    const byType = Object.fromEntries(events.map((e) => [e.type, e.data]));
    expect(byType["call.started"]).toMatchObject({
      id: call.id,
      customerRef: REF,
      direction: "outbound",
      employee: { firstName: "Ada", fullName: "Ada Lovelace", email: org.ada.email },
      sequence: 1,
    });
    expect(byType["customer-check.requested"]).toMatchObject({
      id: checkId,
      callId: call.id,
      customerRef: REF,
      direction: "outbound",
      employee: { firstName: "Ada" },
      sequence: 2,
    });
    expect(byType["customer-check.answered"]).toMatchObject({
      id: checkId,
      callId: call.id,
      customerRef: REF,
      status: "confirmed",
      sequence: 3,
    });
    expect(endedEvent?.data).toMatchObject({ id: call.id, customerRef: REF, sequence: 4 });

    // audited with the actor and the call id
    const audited = await t.database.db.select().from(auditLog).where(eq(auditLog.target, call.id));
    expect(audited.map((a) => a.action).sort()).toEqual(
      [AUDIT_ACTIONS.startCall, AUDIT_ACTIONS.requestCheck, AUDIT_ACTIONS.answerCheck, AUDIT_ACTIONS.endCall].sort(),
    );
    for (const a of audited) expect((a.detail as { via: string }).via).toMatch(/^api:cpk_/);
    await expectNoLeak();
  });

  it("a start ends the employee's call that ran past its end unseen by the calls job (not renewed), then starts", async () => {
    const org = await organisation({ dialler: ["calls:write", "calls:read"] });
    const body = { employeeEmail: org.ada.email, customerRef: REF, direction: "outbound" };
    const first = await api(org.keys.dialler!, "POST", "/api/v1/calls", body);
    expect(first.statusCode, first.body).toBe(201);
    const firstId = first.json().id as string;
    // its end passed a second ago, and the calls job has not ended it yet: it is still open
    const endsAt = new Date(t.clock.now().getTime() - 1_000);
    await t.database.db.update(calls).set({ endsAt }).where(eq(calls.id, firstId));
    const second = await api(org.keys.dialler!, "POST", "/api/v1/calls", body);
    expect(second.statusCode, second.body).toBe(201);
    const secondId = second.json().id as string;
    expect(secondId).not.toBe(firstId);
    const rows = await t.database.db.select().from(calls);
    expect(rows.find((r) => r.id === firstId)).toMatchObject({ endReason: "not-renewed", endedAt: endsAt });
    expect(rows.filter((r) => r.endedAt === null).map((r) => r.id)).toEqual([secondId]);
    const ends = await t.database.db.select().from(auditLog).where(eq(auditLog.action, AUDIT_ACTIONS.endCall));
    expect(ends.map((e) => e.target)).toEqual([firstId]);
    const [ended] = await waitForEvent(org.secret, "call.ended");
    expect(ended?.data).toMatchObject({ id: firstId, sequence: 2 });
  });

  it("checks: a conflict (409) counts no check; 3 per customer in 10 minutes and 3 a minute per employee (429)", async () => {
    const org = await organisation({ dialler: ["calls:write"], app: ["checks:answer"] });
    const start = async (customerRef: string) => {
      const body = { employeeEmail: org.ada.email, customerRef, direction: "outbound" };
      const res = await api(org.keys.dialler!, "POST", "/api/v1/calls", body);
      expect(res.statusCode, res.body).toBe(201);
      return res.json().id as string;
    };
    const check = (callId: string) => api(org.keys.dialler!, "POST", `/api/v1/calls/${callId}/customer-check`);
    const confirm = async (checkId: string) => {
      const res = await api(org.keys.app!, "POST", `/api/v1/customer-checks/${checkId}`, { answer: "confirmed" });
      expect(res.statusCode, res.body).toBe(200);
    };
    const checks = async () =>
      (await t.database.db.rows<{ n: number }>(sql`select count(*)::int as n from customer_checks`))[0]?.n;

    // the customer's 3 checks, each answered; the refusals of a pending check in between count for nothing
    const call = await start(REF);
    for (let i = 0; i < CALL_LIMITS.checksPerCustomerPer10Minutes; i++) {
      const asked = await check(call);
      expect(asked.statusCode, asked.body).toBe(201);
      for (let j = 0; j < 3; j++) {
        const pending = await check(call);
        expect(pending.statusCode).toBe(409);
        expect(pending.json().message).toBe(CALLS_TEXT.checkPending);
      }
      await confirm(asked.json().id);
      t.clock.advance(21_000);
    }
    const refused = await check(call);
    expect(refused.statusCode, refused.body).toBe(429);
    expect(refused.json().message).toBe(CALLS_TEXT.tooManyChecks);
    // the first of the three leaves the 10 minutes about 9 minutes from now
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(8 * 60);
    expect(Number(refused.headers["retry-after"])).toBeLessThanOrEqual(10 * 60);
    expect(await checks()).toBe(CALL_LIMITS.checksPerCustomerPer10Minutes);

    // the employee's own limit: 3 checks a minute, across customers
    t.clock.advance(60_000);
    for (let i = 0; i < CALL_LIMITS.checksPerEmployeePerMinute; i++) {
      const asked = await check(await start(`${REF}-${i}`));
      expect(asked.statusCode, asked.body).toBe(201);
      await confirm(asked.json().id);
    }
    const tooMany = await check(await start(`${REF}-last`));
    expect(tooMany.statusCode, tooMany.body).toBe(429);
    expect(tooMany.json().message).toBe(CALLS_TEXT.tooManyEmployeeChecks);
    expect(Number(tooMany.headers["retry-after"])).toBeGreaterThan(0);
    expect(await checks()).toBe(CALL_LIMITS.checksPerCustomerPer10Minutes + CALL_LIMITS.checksPerEmployeePerMinute);
  });

  it("sends a call's events in order: a later one waits while an earlier one is retried", async () => {
    const org = await organisation({ dialler: ["calls:write"] });
    // call.started's first attempt fails; it is tried again 10 s later
    receiver.statuses = [503];
    const body = { employeeEmail: org.ada.email, customerRef: REF, direction: "outbound" };
    const started = await api(org.keys.dialler!, "POST", "/api/v1/calls", body);
    expect(started.statusCode, started.body).toBe(201);
    await receiver.waitFor(1);
    expect((await api(org.keys.dialler!, "POST", `/api/v1/calls/${started.json().id}/end`)).statusCode).toBe(200);
    // The worker looks (every job has a turn and the work is idle): call.ended waits for call.started.
    await t.app.deps.background.turn();
    expect(delivered(org.secret).map((d) => d.type)).toEqual(["call.started"]);

    t.clock.advance(retryDelayMs(1));
    await t.app.deps.background.turn();
    await waitForEvent(org.secret, "call.ended");
    const events = delivered(org.secret);
    expect(events.map((d) => [d.type, d.data.sequence])).toEqual([
      ["call.started", 1],
      ["call.started", 1],
      ["call.ended", 2],
    ]);
    expect(receiver.received.map((r) => r.headers["webhook-id"])[0]).toBe(receiver.received[1]!.headers["webhook-id"]);
  });

  it("scopes: 403 naming the missing scope; a key with calls:write and checks:answer is refused (400)", async () => {
    const org = await organisation({ reader: ["calls:read"], answerer: ["checks:answer"], writer: ["calls:write"] });
    const both = await org.boss.post("/api/employer/api-keys", {
      name: "both",
      scopes: ["calls:write", "checks:answer"],
    });
    expect(both.statusCode).toBe(400);
    expect(both.body).toContain(API_KEY_TEXT.scopesConflict);
    const body = { employeeEmail: org.ada.email, customerRef: REF, direction: "outbound" };
    const cases: Array<[string, "GET" | "POST", string, unknown, ApiKeyScope]> = [
      ["reader", "POST", "/api/v1/calls", body, "calls:write"],
      ["answerer", "POST", "/api/v1/calls/call_x/end", undefined, "calls:write"],
      ["reader", "POST", "/api/v1/calls/call_x/customer-check", undefined, "calls:write"],
      ["writer", "GET", "/api/v1/customer-checks/chk_x", undefined, "calls:read"],
      ["writer", "POST", "/api/v1/customer-checks/chk_x", { answer: "denied" }, "checks:answer"],
      ["writer", "POST", "/api/v1/customers/export", { customerRef: REF }, "calls:read"],
      ["reader", "POST", "/api/v1/customers/erase", { customerRef: REF }, "calls:write"],
    ];
    for (const [key, method, url, b, scope] of cases) {
      const res = await api(org.keys[key]!, method, url, b);
      expect(res.statusCode, `${key} ${url}`).toBe(403);
      expect(res.json().message).toBe(API_KEY_TEXT.missingScope(scope));
    }
    // a code with customerRef needs calls:write besides codes:write
    const codes = await org.boss.post("/api/employer/api-keys", { name: "codes", scopes: ["codes:write"] });
    const refused = await api(codes.json().key, "POST", "/api/v1/codes", {
      employeeEmail: org.ada.email,
      customerRef: REF,
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toBe(API_KEY_TEXT.missingScope("calls:write"));
    const both2 = await org.boss.post("/api/employer/api-keys", {
      name: "codes+calls",
      scopes: ["codes:write", "calls:write"],
    });
    const issued = await api(both2.json().key, "POST", "/api/v1/codes", {
      employeeEmail: org.ada.email,
      customerRef: REF,
    });
    expect(issued.statusCode, issued.body).toBe(201);
    const hash = customerHash(t.config.appSecret, org.org.id, REF);
    expect((await callStatusOf(t.app.deps.db, org.org.id, hash, t.clock.now())).calling).toHaveLength(1);
    // another organisation's key sees none of these calls
    const other = await createEmployer(t);
    const otherBoss = await signIn(t, other.user.email);
    const otherKey = (await otherBoss.post("/api/employer/api-keys", { name: "x", scopes: ["calls:write"] })).json()
      .key;
    const [row] = await t.database.db.select().from(calls);
    expect((await api(otherKey, "POST", `/api/v1/calls/${row!.id}/end`)).statusCode).toBe(404);
    expect((await api(otherKey, "POST", `/api/v1/calls/${row!.id}/customer-check`)).statusCode).toBe(404);
    await expectNoLeak();
  });

  it("the customer's export and erasure, and a deactivated organisation refusing everything", async () => {
    const org = await organisation({ dialler: ["calls:write", "calls:read"], app: ["checks:answer"] });
    const body = { employeeEmail: org.ada.email, customerRef: REF, direction: "inbound" };
    const call = (await api(org.keys.dialler!, "POST", "/api/v1/calls", body)).json();
    const check = (await api(org.keys.dialler!, "POST", `/api/v1/calls/${call.id}/customer-check`)).json();
    await api(org.keys.app!, "POST", `/api/v1/customer-checks/${check.id}`, { answer: "denied" });
    // after a denial, no further check on this call
    const afterDenial = await api(org.keys.dialler!, "POST", `/api/v1/calls/${call.id}/customer-check`);
    expect(afterDenial.statusCode).toBe(409);
    await waitForEvent(org.secret, "customer-check.answered");
    // the denial raises the denied-checks alert naming the call
    expect(await raiseDueAlerts(t.app.deps)).toBeGreaterThanOrEqual(1);
    const alerted = await t.database.db.execute(sql`select kind, sites from alerts`);
    expect(JSON.stringify(alerted)).toContain("denied-checks");
    expect(JSON.stringify(alerted)).toContain(call.id);

    const exported = await api(org.keys.dialler!, "POST", "/api/v1/customers/export", { customerRef: REF });
    expect(exported.statusCode, exported.body).toBe(200);
    expect(exported.json().calls).toEqual([
      expect.objectContaining({
        id: call.id,
        direction: "inbound",
        employee: { fullName: "Ada Lovelace" },
        checks: [
          expect.objectContaining({ id: check.id, status: "denied", answeredVia: expect.stringMatching(/^api:/) }),
        ],
      }),
    ]);
    const erased = await api(org.keys.dialler!, "POST", "/api/v1/customers/erase", { customerRef: REF });
    expect(erased.statusCode, erased.body).toBe(200);
    expect(erased.json()).toEqual({ calls: 1 });
    expect(await t.database.db.select().from(calls)).toEqual([]);
    expect(await t.database.db.select().from(customerChecks)).toEqual([]);
    const deliveries = await t.database.db.select().from(webhookDeliveries);
    expect(deliveries.filter((d) => d.customerHash !== null)).toEqual([]);
    expect((await api(org.keys.dialler!, "POST", "/api/v1/customers/export", { customerRef: REF })).json()).toEqual({
      calls: [],
    });
    const erasure = await t.database.db.select().from(auditLog).where(eq(auditLog.action, AUDIT_ACTIONS.eraseCustomer));
    expect(erasure).toHaveLength(1);
    await expectNoLeak();

    // deactivated: 401 on /api/v1, 403 in the browser
    const ada = await signIn(t, org.ada.email);
    await deactivateOrganisation(t.database.db, org.org.id, t.clock.now());
    expect((await api(org.keys.dialler!, "POST", "/api/v1/calls", body)).statusCode).toBe(401);
    expect((await api(org.keys.dialler!, "POST", "/api/v1/customers/export", { customerRef: REF })).statusCode).toBe(
      401,
    );
    const browser = await ada.post("/api/calls", { customerRef: REF, direction: "outbound" });
    expect([401, 403]).toContain(browser.statusCode);
    expect(await t.database.db.select().from(calls)).toEqual([]);
  });
});

describe("the employee's calls (/api/calls)", () => {
  async function employee() {
    const org = await organisation();
    const browser = await signIn(t, org.ada.email);
    return { ...org, browser };
  }

  it("start, current, the live stream of a check and the end; a call nobody renews ends after 2 minutes", async () => {
    const org = await employee();
    const started = await org.browser.post("/api/calls", { customerRef: REF, direction: "outbound" });
    expect(started.statusCode, started.body).toBe(201);
    const call = started.json();
    expect((await org.browser.get("/api/calls/current")).json()).toMatchObject({
      id: call.id,
      customerRef: REF,
      startedVia: "dashboard",
    });
    // a code belongs to the call
    const code = await org.browser.post("/api/generate-words", { callId: call.id });
    expect(code.statusCode, code.body).toBe(200);
    expect((await org.browser.post("/api/generate-words", { callId: "call_nope" })).statusCode).toBe(404);

    const stream = await openEventStream<Record<string, unknown>>(`${t.url}/api/calls/${call.id}/events`, {
      cookie: org.browser.cookieHeader(),
    });
    expect(stream.res.status).toBe(200);
    await stream.next("colleague");
    const check = await org.browser.post(`/api/calls/${call.id}/customer-check`);
    expect(check.statusCode, check.body).toBe(201);
    expect((await org.browser.post(`/api/calls/${call.id}/customer-check`)).statusCode).toBe(409);
    const pending = await stream.next("check");
    expect(pending?.data).toMatchObject({ id: check.json().id, status: "pending" });
    // the organisation's backend answers: the employee's screen hears it (its latency: bench/, not a timed test)
    const boss = org.boss;
    const key = (await boss.post("/api/employer/api-keys", { name: "app", scopes: ["checks:answer"] })).json().key;
    expect(
      (await api(key, "POST", `/api/v1/customer-checks/${check.json().id}`, { answer: "confirmed" })).statusCode,
    ).toBe(200);
    for (;;) {
      const confirmed = stream.events.find((e) => e.event === "check" && e.data.status === "confirmed");
      if (confirmed) {
        expect(confirmed.data.answeredVia).toMatch(/^api:cpk_/);
        expect(confirmed.data.keyName).toBe("app");
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    // renewal keeps it alive; then nobody renews it: it ends after 2 minutes
    t.clock.advance(100_000);
    const renewed = await org.browser.post(`/api/calls/${call.id}/renew`);
    expect(renewed.statusCode).toBe(200);
    t.clock.advance(CALL_LIMITS.renewWithinMs + 1_000);
    expect((await org.browser.get("/api/calls/current")).json()).toBeNull();
    const ended = await stream.next("call");
    expect(ended?.data).toEqual({ status: "ended" });
    const [row] = await t.database.db.select().from(calls).where(eq(calls.id, call.id));
    expect(row?.endReason).toBe("not-renewed");
    await waitForEvent(org.secret, "call.ended");
    await stream.close();
    await expectNoLeak();
  });

  it("one active call per employee under concurrent starts; disowning an API call raises an alert", async () => {
    const org = await employee();
    // 12 at once: with 4 tries each, some start lost to others more often than that and answered a 500
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        org.browser.post("/api/calls", { customerRef: `R-${i}`, direction: "inbound" }),
      ),
    );
    for (const r of results) expect(r.statusCode, r.body).toBe(201);
    expect(await t.database.db.select().from(calls).where(isNull(calls.endedAt))).toHaveLength(1);

    const dialler = (await org.boss.post("/api/employer/api-keys", { name: "d", scopes: ["calls:write"] })).json().key;
    const apiCall = (
      await api(dialler, "POST", "/api/v1/calls", {
        employeeEmail: org.ada.email,
        customerRef: REF,
        direction: "outbound",
      })
    ).json();
    expect((await org.browser.get("/api/calls/current")).json()).toMatchObject({ id: apiCall.id, startedVia: "api" });
    expect((await org.browser.post(`/api/calls/${apiCall.id}/disown`)).statusCode).toBe(200);
    expect((await org.browser.get("/api/calls/current")).json()).toBeNull();
    expect(await raiseDueAlerts(t.app.deps)).toBeGreaterThanOrEqual(1);
    const alerted = await t.database.db.execute(sql`select kind, sites from alerts`);
    expect(JSON.stringify(alerted)).toContain("disowned-calls");
    expect(JSON.stringify(alerted)).toContain(apiCall.id);
    // someone else's call: 404
    const other = await createEmployee(t, org.org.id, org.domain, { fullName: "Eve Other" });
    const eve = await signIn(t, other.email);
    expect((await eve.post(`/api/calls/${apiCall.id}/end`)).statusCode).toBe(404);

    // the employee's export lists the calls without references; erasure keeps them
    const exported = (await callsFeature.exportFor?.(t.app.deps, {
      id: org.ada.id,
      email: org.ada.email,
      fullName: org.ada.fullName,
      organisationId: org.org.id,
    })) as unknown[];
    expect(exported).toHaveLength(results.length + 1);
    expect(JSON.stringify(exported)).not.toContain(REF);
    expect(JSON.stringify(exported)).not.toContain("R-1");
  });

  it("the 31st call start in an hour is 429 with Retry-After", async () => {
    const org = await employee();
    for (let i = 0; i < CALL_LIMITS.startsPerEmployeePerHour; i++) {
      const res = await org.browser.post("/api/calls", { customerRef: `R-${i}`, direction: "outbound" });
      expect(res.statusCode, res.body).toBe(201);
    }
    const refused = await org.browser.post("/api/calls", { customerRef: "R-x", direction: "outbound" });
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
  });

  it("a start refused by the organisation's limit leaves the employee's call as it was and starts nothing", async () => {
    const org = await employee();
    const first = await org.browser.post("/api/calls", { customerRef: "R-1", direction: "outbound" });
    expect(first.statusCode, first.body).toBe(201);
    const current = (await org.browser.get("/api/calls/current")).json();
    // the organisation's 600 starts of the last minute, taken by others
    const now = t.clock.now().toISOString();
    await t.database.db.rows(sql`
      insert into rate_limits (key, hits, allowed, refused, expires_at)
      values (${`calls-start:org:${org.org.id}`}, array_fill(${now}::timestamptz, array[${CALL_LIMITS.startsPerOrganisationPerMinute}::int]),
        true, 0, ${now}::timestamptz + interval '1 minute')
      on conflict (key) do update set hits = excluded.hits`);
    const written = async () =>
      (
        await t.database.db.rows<{ calls: number; ended: number; starts: number }>(sql`
          select (select count(*) from calls)::int as calls,
            (select count(*) from calls where ended_at is not null)::int as ended,
            (select count(*) from audit_log where action = ${AUDIT_ACTIONS.startCall})::int as starts`)
      )[0];
    const before = await written();
    const refused = await org.browser.post("/api/calls", { customerRef: "R-2", direction: "outbound" });
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect((await org.browser.get("/api/calls/current")).json()).toEqual(current);
    expect(await written()).toEqual(before);
  });

  it("malformed input is refused (4xx) and writes nothing", async () => {
    const org = await organisation({ dialler: ["calls:write", "calls:read"] });
    const browser = await signIn(t, org.ada.email);
    const bodies: unknown[] = [
      { customerRef: "", direction: "outbound" },
      { customerRef: "x".repeat(129), direction: "outbound" },
      { customerRef: "has space", direction: "outbound" },
      { customerRef: "tab\there", direction: "outbound" },
      { customerRef: "nul\u0000", direction: "outbound" },
      { customerRef: "caf\u00e9", direction: "outbound" },
      { customerRef: "ok", direction: "sideways" },
      { customerRef: "ok", direction: "outbound", extra: 1 },
      { customerRef: "x".repeat(100_000), direction: "outbound" },
      { customerRef: ["ok"], direction: "outbound" },
      "not json",
    ];
    for (const body of bodies) {
      const res = await browser.post("/api/calls", body);
      expect(res.statusCode, JSON.stringify(body).slice(0, 60)).toBeGreaterThanOrEqual(400);
      expect(res.statusCode).toBeLessThan(500);
      const v1 = await api(org.keys.dialler!, "POST", "/api/v1/calls", {
        employeeEmail: org.ada.email,
        ...(typeof body === "object" ? body : { body }),
      });
      expect(v1.statusCode).toBeGreaterThanOrEqual(400);
      expect(v1.statusCode).toBeLessThan(500);
    }
    for (const customerRef of ["", "x".repeat(129), "has space", "tab\there", "nul\u0000", "caf\u00e9", 42, null]) {
      for (const url of ["/api/v1/customers/export", "/api/v1/customers/erase"]) {
        const res = await api(org.keys.dialler!, "POST", url, { customerRef });
        expect(res.statusCode, `${url} ${JSON.stringify(customerRef)}`).toBeGreaterThanOrEqual(400);
        expect(res.statusCode).toBeLessThan(500);
      }
    }
    for (const url of ["/api/calls/../x/end", "/api/calls/%00/end", `/api/calls/${"a".repeat(200)}/end`]) {
      const res = await browser.post(url);
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      expect(res.statusCode).toBeLessThan(500);
    }
    const answer = await api(org.keys.dialler!, "POST", "/api/v1/customer-checks/chk_x", { answer: "maybe" });
    expect(answer.statusCode).toBeGreaterThanOrEqual(400);
    expect(await t.database.db.select().from(calls)).toEqual([]);
    expect(await t.database.db.select().from(customerChecks)).toEqual([]);
  });

  it("retention deletes calls older than RETENTION_CALLS_DAYS with the deliveries naming them", async () => {
    const org = await employee();
    const call = (await org.browser.post("/api/calls", { customerRef: REF, direction: "outbound" })).json();
    await org.browser.post(`/api/calls/${call.id}/end`);
    await waitForEvent(org.secret, "call.ended");
    t.clock.advance(89 * 24 * 3_600_000);
    expect(await applyCallsRetention(t.app.deps)).toBe(0);
    t.clock.advance(2 * 24 * 3_600_000);
    expect(await applyCallsRetention(t.app.deps)).toBe(1);
    expect(await t.database.db.select().from(calls)).toEqual([]);
    const deliveries = await t.database.db.select().from(webhookDeliveries);
    expect(deliveries.filter((d) => d.callId === call.id)).toEqual([]);
  });
});
