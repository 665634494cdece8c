/**
 * The customer's side of calls (contract, "Calls": "Tokens and the component's routes"): status tokens minted
 * by the organisation's backend, its call-status read, and the call-status component's routes, over real
 * HTTP as the component reaches them (fetch with `Authorization: Bearer` and the page's Origin).
 */
import { randomBytes } from "node:crypto";
import { callReports, callStatusTokens, customerChecks } from "@server/db/schema";
import { deactivateOrganisation } from "@server/features/organisations";
import { sha256 } from "@server/lib/crypto";
import type { ApiKeyScope } from "@shared/api-keys";
import { CALL_STATUS_LIMITS, type ComponentEnd, type ComponentState } from "@shared/call-status-protocol";
import { openEventStream } from "@test/event-stream";
import { createEmployee, createEmployer, TRUST_PROXY_ENV } from "@test/fixtures";
import { buildTestApp, openAgain, signIn, type TestApp } from "@test/helpers";
import { eq, sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NO_DETAILS, streamsOf } from "./status-live";

let t: TestApp;
let logLines: string[];
beforeEach(async () => {
  logLines = [];
  t = await buildTestApp({ env: TRUST_PROXY_ENV, listen: true, log: (line) => logLines.push(line) });
});
afterEach(async () => {
  await t?.close();
});

const REF = "CUST-7781-zq";
let ipSeq = 0;
const freshAddress = () => `192.0.2.${++ipSeq}`;

/** An organisation with a superuser, an employee ("Ada Lovelace") and keys; its verified page origin. */
async function organisation() {
  const employer = await createEmployer(t, { companyName: "Globex Bank" });
  const employee = await createEmployee(t, employer.org.id, employer.domain, { fullName: "Ada Lovelace" });
  const browser = await signIn(t, employer.user.email);
  const key = async (scopes: ApiKeyScope[]) => {
    const res = await browser.post("/api/employer/api-keys", { name: `key ${scopes.join(" ")} ${++ipSeq}`, scopes });
    expect(res.statusCode, res.body).toBe(201);
    return { key: res.json().key as string, id: res.json().id as number };
  };
  const reader = await key(["calls:read"]);
  const answerer = await key(["calls:read", "checks:answer"]);
  const dialler = await key(["calls:write"]);
  return { ...employer, employee, browser, key, reader, answerer, dialler, origin: `https://www.${employer.domain}` };
}
type Org = Awaited<ReturnType<typeof organisation>>;

/** An /api/v1 call as the organisation's backend makes it. */
function v1(key: string, method: "POST" | "DELETE", url: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${t.url}/api/v1${url}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      "x-forwarded-for": "198.51.100.7",
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function mint(org: Org, body: Record<string, unknown> = {}, key = org.reader.key) {
  const res = await v1(key, "POST", "/customers/status-token", { customerRef: REF, origin: org.origin, ...body });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as { token: string; expiresAt: string };
}

/** A request of the component: the token in the header, the page's Origin, no cookies. */
function component(
  token: string,
  method: "GET" | "POST" | "OPTIONS",
  path: string,
  opts: { origin?: string | null; body?: unknown; ip?: string } = {},
) {
  const headers: Record<string, string> = {
    authorization: `Bearer ${token}`,
    "x-forwarded-for": opts.ip ?? "203.0.113.9",
  };
  if (opts.origin !== null && opts.origin !== undefined) headers.origin = opts.origin;
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  return fetch(`${t.url}/api/call-status${path}`, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
}

type Event = ComponentState | ComponentEnd | { at: string };
function stream(token: string, origin: string, ip = "203.0.113.9") {
  return openEventStream<Event>(`${t.url}/api/call-status/stream`, {
    authorization: `Bearer ${token}`,
    origin,
    "x-forwarded-for": ip,
  });
}

/** A call the organisation's dialler starts for the employee (POST /api/v1/calls). */
async function startCall(org: Org, direction: "outbound" | "inbound", ref = REF) {
  const res = await v1(org.dialler.key, "POST", "/calls", {
    employeeEmail: org.employee.email,
    customerRef: ref,
    direction,
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return { id: (await res.json()).id as string };
}

/** The dialler asks the customer to confirm (POST /api/v1/calls/:id/customer-check). */
async function askCheck(org: Org, call: { id: string }) {
  const res = await v1(org.dialler.key, "POST", `/calls/${call.id}/customer-check`, undefined);
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()).id as string;
}

const tokenRows = (org: Org) =>
  t.database.db.select().from(callStatusTokens).where(eq(callStatusTokens.organisationId, org.org.id));

describe("status tokens", () => {
  it("mints an opaque cps_ token for 15 minutes, keeping only its SHA-256, bound to the exact origin", async () => {
    const org = await organisation();
    const { token, expiresAt } = await mint(org);
    expect(token).toMatch(/^cps_[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(expiresAt) - t.clock.now().getTime()).toBe(CALL_STATUS_LIMITS.tokenTtlMs);
    const [row] = await tokenRows(org);
    expect(row).toMatchObject({
      tokenHash: sha256(token),
      origin: org.origin,
      canAnswer: false,
      apiKeyId: org.reader.id,
    });
    const stored = JSON.stringify(await t.database.db.select().from(callStatusTokens));
    expect(stored).not.toContain(token);
    expect(stored).not.toContain(REF);
  });

  it("refuses an origin that is not exactly a verified https page origin of the organisation (400), and answer without checks:answer (403)", async () => {
    const org = await organisation();
    const other = await createEmployer(t);
    for (const origin of [
      `http://www.${org.domain}`,
      `https://www.${org.domain}/`,
      `https://www.${org.domain}/login`,
      `https://WWW.${org.domain}`,
      `https://www.${org.domain}:443`,
      `https://${org.domain}.evil.test`,
      `https://www.${other.domain}`,
      t.config.publicOrigin,
      "null",
      "not an origin",
    ]) {
      const res = await v1(org.reader.key, "POST", "/customers/status-token", { customerRef: REF, origin });
      expect(res.status, origin).toBe(400);
    }
    // A subdomain of a verified site, and another port, are origins of their own and may be minted for.
    await mint(org, { origin: `https://app.${org.domain}` });
    await mint(org, { origin: `https://app.${org.domain}:8443` });
    const res = await v1(org.reader.key, "POST", "/customers/status-token", {
      customerRef: REF,
      origin: org.origin,
      answer: true,
    });
    expect(res.status).toBe(403);
    expect((await res.json()).message).toContain("checks:answer");
    const codes = await org.key(["codes:read"]);
    const noScope = await v1(codes.key, "POST", "/customers/status-token", { customerRef: REF, origin: org.origin });
    expect(noScope.status).toBe(403);
    expect((await noScope.json()).message).toContain("calls:read");
    expect(await tokenRows(org)).toHaveLength(2);
  });

  it("malformed input answers 4xx and writes nothing", async () => {
    const org = await organisation();
    const bodies: unknown[] = [
      { customerRef: "", origin: org.origin },
      { customerRef: "has space", origin: org.origin },
      { customerRef: "tab\tref", origin: org.origin },
      { customerRef: "é-accent", origin: org.origin },
      { customerRef: "x".repeat(129), origin: org.origin },
      { customerRef: REF, origin: org.origin, extra: 1 },
      { customerRef: REF, origin: org.origin, answer: "yes" },
      { customerRef: 42, origin: org.origin },
      { origin: org.origin },
      { customerRef: REF, origin: "x".repeat(100_000) },
      "{not json",
      "x".repeat(100_000),
    ];
    for (const body of bodies) {
      const res = await v1(org.reader.key, "POST", "/customers/status-token", body);
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
    for (const url of ["/customers/call-status"]) {
      const res = await v1(org.reader.key, "POST", url, { customerRef: "a b" });
      expect(res.status).toBe(400);
    }
    const del = await v1(org.reader.key, "DELETE", "/customers/status-tokens", { customerRef: "\u0000" });
    expect(del.status).toBe(400);
    expect(await tokenRows(org)).toHaveLength(0);
  });

  it("the 21st live token of a customer revokes the oldest", async () => {
    const org = await organisation();
    const tokens: string[] = [];
    for (let i = 0; i < CALL_STATUS_LIMITS.tokensPerCustomer; i++) {
      tokens.push((await mint(org)).token);
      t.clock.advance(1_000);
    }
    const first = tokens[0] ?? "";
    const opened = await component(first, "GET", "/stream", { origin: org.origin });
    expect(opened.status).toBe(200);
    await opened.body?.cancel();
    const s = await stream(first, org.origin, freshAddress());
    await s.next("state");
    await mint(org);
    // The oldest stops at once, and its open stream ends.
    expect(await s.next("end")).toMatchObject({ data: { reason: "revoked" } });
    expect((await component(first, "GET", "/stream", { origin: org.origin })).status).toBe(401);
    const second = await component(tokens[1] ?? "", "GET", "/stream", { origin: org.origin });
    expect(second.status).toBe(200);
    await second.body?.cancel();
    const live = (await tokenRows(org)).filter((r) => r.revokedAt === null);
    expect(live).toHaveLength(CALL_STATUS_LIMITS.tokensPerCustomer);
  });
});

describe("POST /api/v1/customers/call-status", () => {
  it("answers the active outbound calls and the last outbound call; an inbound call never appears", async () => {
    const org = await organisation();
    const status = async (key = org.reader.key) => {
      const res = await v1(key, "POST", "/customers/call-status", { customerRef: REF });
      expect(res.status).toBe(200);
      return res.json();
    };
    expect(await status()).toEqual({ calling: [], lastCallAt: null, lastCaller: null });
    await startCall(org, "inbound");
    expect(await status()).toEqual({ calling: [], lastCallAt: null, lastCaller: null });
    const call = await startCall(org, "outbound");
    const started = t.clock.now().toISOString();
    expect(await status()).toEqual({
      calling: [{ callId: call.id, employee: { firstName: "Ada", fullName: "Ada Lovelace" }, startedAt: started }],
      lastCallAt: started,
      lastCaller: { firstName: "Ada" },
    });
    // Another organisation's key sees nothing of it: the same reference is another customer there.
    const other = await organisation();
    expect(await status(other.reader.key)).toEqual({ calling: [], lastCallAt: null, lastCaller: null });
    // Ended: no longer calling, still the last call.
    expect((await v1(org.dialler.key, "POST", `/calls/${call.id}/end`, undefined)).status).toBe(200);
    expect(await status()).toEqual({ calling: [], lastCallAt: started, lastCaller: { firstName: "Ada" } });
  });
});

describe("POST /api/v1/customers/call-status: the key checked in the read's own statement", () => {
  it("a key that served it stops at once when revoked, here and on another instance on the same database; its prefix with another secret never served", async () => {
    const org = await organisation();
    const database = await openAgain(t.database);
    const second = await buildTestApp({
      database: database ?? t.database,
      clock: t.clock,
      env: TRUST_PROXY_ENV,
      listen: true,
    });
    try {
      const status = (key: string, url: string) =>
        fetch(`${url}/api/v1/customers/call-status`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${key}`,
            "content-type": "application/json",
            "x-forwarded-for": freshAddress(),
          },
          body: JSON.stringify({ customerRef: REF }),
        });
      // Twice on each instance: the second request is checked in the read's statement (a key seen before).
      for (const url of [t.url, second.url, t.url, second.url])
        expect((await status(org.reader.key, url)).status).toBe(200);
      const forged = `${org.reader.key.slice(0, 12)}${"A".repeat(org.reader.key.length - 12)}`;
      for (const url of [t.url, second.url]) {
        const refused = await status(forged, url);
        expect(refused.status).toBe(401);
        expect(await refused.json()).not.toHaveProperty("calling");
      }
      const revoked = await org.browser.request("DELETE", `/api/employer/api-keys/${org.reader.id}`);
      expect(revoked.statusCode, revoked.body).toBe(200);
      for (const url of [t.url, second.url]) expect((await status(org.reader.key, url)).status).toBe(401);
      // The organisation deactivated: its other key, seen before, is refused at once too.
      expect((await status(org.answerer.key, second.url)).status).toBe(200);
      await deactivateOrganisation(t.database.db, org.org.id, t.clock.now());
      for (const url of [t.url, second.url]) expect((await status(org.answerer.key, url)).status).toBe(401);
    } finally {
      await second.close();
      await database?.close();
    }
  });
});

describe("the component's routes", () => {
  it("streams the state at once and on every change, with CORS to the token's origin only and no cookie", async () => {
    const org = await organisation();
    const { token } = await mint(org);
    const s = await stream(token, org.origin);
    expect(s.res.status).toBe(200);
    expect(s.res.headers.get("content-type")).toContain("text/event-stream");
    expect(s.res.headers.get("access-control-allow-origin")).toBe(org.origin);
    expect(s.res.headers.get("access-control-allow-credentials")).toBeNull();
    expect(s.res.headers.get("set-cookie")).toBeNull();
    const first = await s.next("state");
    expect(first?.data).toEqual({
      companyName: "Globex Bank",
      calling: [],
      lastCallAt: null,
      check: null,
      canAnswer: false,
    });
    const call = await startCall(org, "outbound");
    await waitFor(() => s.events.filter((e) => e.event === "state").length >= 2);
    const states = s.events.filter((e) => e.event === "state");
    expect(states.at(-1)?.data).toMatchObject({
      calling: [{ firstName: "Ada", startedAt: t.clock.now().toISOString() }],
      lastCallAt: t.clock.now().toISOString(),
    });
    await askCheck(org, call);
    const lastState = () => s.events.filter((e) => e.event === "state").at(-1)?.data as ComponentState | undefined;
    await waitFor(() => Boolean(lastState()?.check));
    expect(lastState()?.check).toMatchObject({ direction: "outbound", firstName: "Ada" });
    await s.close();
  });

  it("refuses another origin, no Origin, Origin null, another port and a subdomain (403)", async () => {
    const org = await organisation();
    const { token } = await mint(org);
    for (const origin of [
      null,
      "null",
      `https://www.${org.domain}:8443`,
      `https://app.www.${org.domain}`,
      `https://${org.domain}`,
      `http://www.${org.domain}`,
      "https://evil.test",
    ]) {
      const res = await component(token, "GET", "/stream", { origin });
      expect(res.status, String(origin)).toBe(403);
      expect(res.headers.get("access-control-allow-origin")).toBeNull();
      const answer = await component(token, "POST", "/checks/k_x", { origin, body: { answer: "confirmed" } });
      expect(answer.status).toBe(403);
      const report = await component(token, "POST", "/report", { origin, body: {} });
      expect(report.status).toBe(403);
    }
    expect(await t.database.db.select().from(callReports)).toHaveLength(0);
  });

  it("forged, malformed and unknown tokens are 401 and write nothing", async () => {
    const org = await organisation();
    const before = await rowCount();
    for (const token of [
      `cps_${randomBytes(32).toString("base64url")}`,
      "cps_short",
      "cpk_notatoken",
      "",
      `cps_${"A".repeat(43)}`,
    ]) {
      for (const [method, path, body] of [
        ["GET", "/stream", undefined],
        ["POST", "/checks/k_x", { answer: "denied" }],
        ["POST", "/report", { note: "x" }],
      ] as const) {
        const res = await component(token, method, path, { origin: org.origin, body });
        expect(res.status, `${token} ${path}`).toBe(401);
        expect(res.headers.get("access-control-allow-origin")).toBeNull();
      }
    }
    expect(await rowCount()).toEqual(before);
  });

  it("answers a preflight from a verified site of an active organisation only", async () => {
    const org = await organisation();
    const res = await fetch(`${t.url}/api/call-status/stream`, {
      method: "OPTIONS",
      headers: {
        origin: org.origin,
        "access-control-request-method": "GET",
        "access-control-request-headers": "authorization",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(org.origin);
    expect(res.headers.get("access-control-allow-headers")).toContain("authorization");
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
    for (const origin of ["https://evil.test", "null", t.config.publicOrigin]) {
      const refused = await fetch(`${t.url}/api/call-status/checks/k_1`, { method: "OPTIONS", headers: { origin } });
      expect(refused.status, origin).toBe(204);
      expect(refused.headers.get("access-control-allow-origin")).toBeNull();
    }
  });

  it("a status-only token cannot answer; an answering token answers its customer's check once", async () => {
    const org = await organisation();
    const call = await startCall(org, "outbound");
    const checkId = await askCheck(org, call);
    const statusOnly = (await mint(org)).token;
    const res = await component(statusOnly, "POST", `/checks/${checkId}`, {
      origin: org.origin,
      body: { answer: "confirmed" },
    });
    expect(res.status).toBe(403);
    expect(res.headers.get("access-control-allow-origin")).toBe(org.origin);
    const answering = (await mint(org, { answer: true }, org.answerer.key)).token;
    // A token of another customer, and one of another organisation, do not reach it.
    const otherCustomer = (
      await (
        await v1(org.answerer.key, "POST", "/customers/status-token", {
          customerRef: "ANOTHER-1",
          origin: org.origin,
          answer: true,
        })
      ).json()
    ).token as string;
    const notTheirs = await component(otherCustomer, "POST", `/checks/${checkId}`, {
      origin: org.origin,
      body: { answer: "denied" },
    });
    expect(notTheirs.status).toBe(404);
    const other = await organisation();
    const otherOrg = (await mint(other, { answer: true }, other.answerer.key)).token;
    const foreign = await component(otherOrg, "POST", `/checks/${checkId}`, {
      origin: other.origin,
      body: { answer: "denied" },
    });
    expect(foreign.status).toBe(404);
    const [pending] = await t.database.db.select().from(customerChecks).where(eq(customerChecks.id, checkId));
    expect(pending?.status).toBe("pending");

    const yes = await component(answering, "POST", `/checks/${checkId}`, {
      origin: org.origin,
      body: { answer: "confirmed" },
    });
    expect(yes.status).toBe(200);
    expect(await yes.json()).toEqual({ id: checkId, status: "confirmed" });
    const [answered] = await t.database.db.select().from(customerChecks).where(eq(customerChecks.id, checkId));
    expect(answered).toMatchObject({ status: "confirmed", answeredVia: "component" });
    const again = await component(answering, "POST", `/checks/${checkId}`, {
      origin: org.origin,
      body: { answer: "denied" },
    });
    expect(again.status).toBe(409);
    for (const body of [{ answer: "yes" }, { answer: "confirmed", extra: 1 }, {}]) {
      const bad = await component(answering, "POST", `/checks/${checkId}`, { origin: org.origin, body });
      expect(bad.status).toBe(400);
    }
  });

  it("revoking a customer's tokens stops them at once and ends their streams", async () => {
    const org = await organisation();
    const { token } = await mint(org);
    const s = await stream(token, org.origin);
    await s.next("state");
    const res = await v1(org.reader.key, "DELETE", "/customers/status-tokens", { customerRef: REF });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ revoked: 1 });
    expect(await s.next("end")).toMatchObject({ data: { reason: "revoked" } });
    await waitFor(() => s.ended);
    const after = await component(token, "GET", "/stream", { origin: org.origin });
    expect(after.status).toBe(401);
    // The component may read the refusal: it answers to the token's origin.
    expect(after.headers.get("access-control-allow-origin")).toBe(org.origin);
  });

  it("a token dies at expiry (its stream ends), with its key's revocation and its organisation's deactivation", async () => {
    const org = await organisation();
    const { token } = await mint(org);
    const s = await stream(token, org.origin);
    await s.next("state");
    t.clock.advance(CALL_STATUS_LIMITS.tokenTtlMs);
    await t.app.deps.background.turn();
    expect(await s.next("end")).toMatchObject({ data: { reason: "expired" } });
    expect((await component(token, "GET", "/stream", { origin: org.origin })).status).toBe(401);

    const second = (await mint(org)).token;
    const s2 = await stream(second, org.origin);
    await s2.next("state");
    const revoked = await org.browser.request("DELETE", `/api/employer/api-keys/${org.reader.id}`);
    expect(revoked.statusCode).toBe(200);
    await t.app.deps.background.turn();
    expect(await s2.next("end")).toMatchObject({ data: { reason: "revoked" } });
    expect((await component(second, "GET", "/stream", { origin: org.origin })).status).toBe(401);

    const third = (await mint(org, {}, org.answerer.key)).token;
    const s3 = await stream(third, org.origin);
    await s3.next("state");
    await t.database.db.execute(sql`update organisations set status = 'deactivated' where id = ${org.org.id}::int`);
    await t.app.deps.background.turn();
    expect(await s3.next("end")).toMatchObject({ data: { reason: "revoked" } });
    expect((await component(third, "GET", "/stream", { origin: org.origin })).status).toBe(401);
    expect((await component(third, "POST", "/report", { origin: org.origin, body: {} })).status).toBe(401);
    // The organisation's keys refuse every /api/v1 call too.
    const res = await v1(org.answerer.key, "POST", "/customers/call-status", { customerRef: REF });
    expect(res.status).toBe(401);
  });

  it("limits streams: 3 per token, 20 per client address (429), and the process's cap (503 with Retry-After)", async () => {
    const org = await organisation();
    const { token } = await mint(org);
    const ip = freshAddress();
    const open = [];
    for (let i = 0; i < CALL_STATUS_LIMITS.streamsPerToken; i++) {
      const s = await stream(token, org.origin, ip);
      expect(s.res.status).toBe(200);
      open.push(s);
    }
    const fourth = await component(token, "GET", "/stream", { origin: org.origin, ip: freshAddress() });
    expect(fourth.status).toBe(429);
    expect(fourth.headers.get("retry-after")).toBe(String(CALL_STATUS_LIMITS.retryAfterSeconds));
    expect(fourth.headers.get("access-control-allow-origin")).toBe(org.origin);
    // 20 from one address, whatever the tokens.
    while (open.length < CALL_STATUS_LIMITS.streamsPerAddress) {
      const s = await stream((await mint(org)).token, org.origin, ip);
      expect(s.res.status).toBe(200);
      open.push(s);
    }
    const tooMany = await component((await mint(org)).token, "GET", "/stream", { origin: org.origin, ip });
    expect(tooMany.status).toBe(429);
    // Closing one frees its place.
    await open.pop()?.close();
    await waitFor(async () => {
      const again = await component((await mint(org)).token, "GET", "/stream", { origin: org.origin, ip });
      await again.body?.cancel();
      return again.status === 200;
    });
    const cap = streamsOf(t.app);
    // The process's cap reached (lowered to what is open, or less while closed streams are let go).
    cap.cap = 0;
    const busy = await component((await mint(org)).token, "GET", "/stream", { origin: org.origin, ip: freshAddress() });
    expect(busy.status).toBe(503);
    expect(busy.headers.get("retry-after")).toBe(String(CALL_STATUS_LIMITS.retryAfterSeconds));
    for (const s of open) await s.close();
  });

  it("a report goes to the token's organisation, marked as sent from the component", async () => {
    const org = await organisation();
    const { token } = await mint(org);
    const res = await component(token, "POST", "/report", { origin: org.origin, body: {} });
    expect(res.status).toBe(201);
    expect(res.headers.get("access-control-allow-origin")).toBe(org.origin);
    const fr = await component(token, "POST", "/report", {
      origin: org.origin,
      body: { note: "bizarre", language: "fr" },
    });
    expect(fr.status).toBe(201);
    expect(fr.headers.get("content-language")).toBe("fr");
    const rows = await t.database.db.select().from(callReports);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({
      organisationId: org.org.id,
      via: "call-status",
      site: `www.${org.domain}`,
      unverifiedOrigin: false,
      note: NO_DETAILS,
    });
    const list = await org.browser.get("/api/employer/reports");
    expect(list.json().items).toHaveLength(2);
    for (const body of [{ note: "a\u0007b" }, { extra: true }, { note: "x".repeat(600) }]) {
      const bad = await component(token, "POST", "/report", { origin: org.origin, body });
      expect(bad.status).toBe(400);
    }
    expect(await t.database.db.select().from(callReports)).toHaveLength(2);
  });

  it("the customerRef is never in a URL or a log line", async () => {
    const org = await organisation();
    const { token } = await mint(org, { answer: true }, org.answerer.key);
    const call = await startCall(org, "outbound");
    const checkId = await askCheck(org, call);
    const s = await stream(token, org.origin);
    await s.next("state");
    await component(token, "POST", `/checks/${checkId}`, { origin: org.origin, body: { answer: "denied" } });
    await v1(org.reader.key, "POST", "/customers/call-status", { customerRef: REF });
    await v1(org.reader.key, "DELETE", "/customers/status-tokens", { customerRef: REF });
    await s.next("end");
    await v1(org.reader.key, "POST", "/customers/status-token", { customerRef: `${REF} bad`, origin: org.origin });
    await t.app.deps.background.idle();
    expect(logLines.length).toBeGreaterThan(5);
    const text = logLines.join("\n");
    expect(text).not.toContain(REF);
    expect(text).not.toContain(token);
    expect(text).not.toContain(org.reader.key);
    for (const line of logLines) {
      const url = (JSON.parse(line) as { req?: { url?: string } }).req?.url ?? "";
      expect(url).not.toContain(REF);
    }
  });
});

async function rowCount() {
  const [row] = await t.database.db.rows<{ n: number }>(sql`
    select (select count(*) from call_status_tokens)::int + (select count(*) from call_reports)::int
      + (select count(*) from customer_checks where status <> 'pending')::int as n`);
  return row?.n;
}

/** Waits until `done` holds (each look after the server had a moment), at most 15 s. */
async function waitFor(done: () => boolean | Promise<boolean>) {
  const until = Date.now() + 15_000;
  while (!(await done())) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}
