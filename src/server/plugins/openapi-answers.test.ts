import { createEmployee, createEmployer, freshIp, signInAdmin, TRUST_PROXY_ENV } from "@test/fixtures";
import { Browser, buildTestApp, signIn, type TestApp, uniqueEmail } from "@test/helpers";
import {
  conformance,
  type OpenapiDocument,
  openapiPath,
  type RecordedAnswer,
  recordAnswers,
  undocumented,
} from "@test/openapi-conformance";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * The document cannot drift from the server: the main flows of every kind of caller (signed out, employee,
 * employer, admin, API key, SCIM token) are driven through the real server, every answer is recorded, and
 * each is checked against the served /api/openapi.json: its route and status documented, its media type the
 * documented one, its body valid for that response's schema (ajv), Retry-After on 429 and 503.
 */
let t: TestApp;
let document: OpenapiDocument;
const answers: RecordedAnswer[] = [];

beforeAll(async () => {
  t = await buildTestApp({ env: TRUST_PROXY_ENV, listen: true, beforeReady: recordAnswers(answers) });
  document = (await t.app.inject({ method: "GET", url: "/api/openapi.json" })).json();
});
afterAll(async () => {
  await t?.close();
});

/** A request as a script sends it (no cookies), from an address of its own. */
function call(method: string, url: string, opts: { headers?: Record<string, string>; body?: unknown } = {}) {
  const { body } = opts;
  return t.app.inject({
    method: method as "GET",
    url,
    headers: {
      "x-forwarded-for": freshIp(),
      ...(body !== undefined && typeof body !== "string" ? { "content-type": "application/json" } : {}),
      ...opts.headers,
    },
    ...(body !== undefined ? { payload: typeof body === "string" ? body : JSON.stringify(body) } : {}),
  });
}

/** Reads a server-sent stream until its first event, then closes it. */
async function firstEvent(url: string, headers: Record<string, string>) {
  const controller = new AbortController();
  const res = await fetch(`${t.url}${url}`, { headers, signal: controller.signal });
  expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes("\ndata: ")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  controller.abort();
  await reader.cancel().catch(() => {});
  return text;
}

async function driveSignedOut() {
  expect((await call("GET", "/api/auth/whoami")).statusCode).toBe(401);
  expect((await call("GET", "/api/public-config")).statusCode).toBe(200);
  expect((await call("GET", "/api/codes/1")).statusCode).toBe(401);
  // no CSRF token: 403; then a browser's wrong password: 401; a wrong body: 400
  expect((await call("POST", "/api/auth/login", { body: { email: "a@b.test", password: "x" } })).statusCode).toBe(403);
  const browser = signedOutBrowser();
  expect(
    (await browser.post("/api/auth/login", { email: "nobody@b.test", password: "Wrong-Pass-42" })).statusCode,
  ).toBe(401);
  expect((await browser.post("/api/auth/login", { email: 42 })).statusCode).toBe(400);
  expect((await browser.post("/api/auth/forgot-password", { email: "nobody@b.test" })).statusCode).toBe(200);
  expect(
    (await browser.post("/api/auth/reset-password", { token: "x", newPassword: "Correct-Horse-43" })).statusCode,
  ).toBe(400);
  expect((await browser.post("/api/auth/verify-email", { email: "nobody@b.test", token: "x" })).statusCode).toBe(400);
  expect((await browser.post("/api/auth/validate-access-code", { code: "NOPE-NOPE" })).statusCode).toBeGreaterThan(399);
  expect(
    (await browser.post("/api/employer/auth/validate-employer-access-code", { code: "NOPE-NOPE" })).statusCode,
  ).toBeGreaterThan(399);
  expect((await browser.get("/api/auth/sso/discover?email=someone%40nowhere.test")).statusCode).toBe(200);
  const fromPage = { "sec-fetch-site": "same-origin" };
  expect((await browser.get("/api/auth/sso/start?email=someone%40nowhere.test", fromPage)).statusCode).toBe(404);
  expect((await browser.get("/api/auth/sso/start?email=someone%40nowhere.test")).statusCode).toBe(303);
  expect((await browser.post("/api/auth/sso/start", { email: "someone@nowhere.test" }, fromPage)).statusCode).toBe(404);
  expect((await browser.post("/api/auth/passkey/options")).statusCode).toBe(200);
  expect((await browser.post("/api/auth/passkey/verify", { response: { id: "x" } })).statusCode).toBeGreaterThan(399);
  expect((await browser.post("/api/auth/resend-verification", { email: "nobody@b.test" })).statusCode).toBe(200);
  const signUp = {
    email: "new@b.test",
    password: "Correct-Horse-42",
    fullName: "New Person",
    website: "https://b.test",
  };
  expect(
    (await browser.post("/api/auth/register-employee", { ...signUp, accessCode: "NOPE-NOPE" })).statusCode,
  ).toBeGreaterThan(399);
  expect(
    (
      await browser.post("/api/employer/auth/register-employer", {
        ...signUp,
        companyName: "B",
        confirmPassword: signUp.password,
        role: "superuser",
        accessCode: "NOPE-NOPE",
      })
    ).statusCode,
  ).toBeGreaterThan(399);
  // the identity provider's redirect without a state it issued: back to /login
  expect((await browser.get("/api/auth/sso/callback?code=x&state=y")).statusCode).toBe(302);

  // the widget's calls: a wrong guess, a report, an empty report, a body of the wrong type, and one too large
  expect((await call("POST", "/api/verify", { body: { words: "apple river stone" } })).json()).toMatchObject({
    verified: false,
  });
  expect((await call("POST", "/api/reports", { body: { callerNumber: "+44 20 7946 0000" } })).statusCode).toBe(201);
  expect((await call("POST", "/api/reports", { body: {} })).statusCode).toBe(400);
  expect(
    (await call("POST", "/api/verify", { body: "<words/>", headers: { "content-type": "application/xml" } }))
      .statusCode,
  ).toBe(415);
  expect((await call("POST", "/api/verify", { body: { words: "a".repeat(1_100_000) } })).statusCode).toBe(413);
  expect(
    (await call("POST", "/api/verify", { body: "{not json", headers: { "content-type": "application/json" } }))
      .statusCode,
  ).toBe(400);
}

/** A browser of its own address (its own rate limits), nobody signed in. */
const signedOutBrowser = () => new Browser(t.app, freshIp(), t.config.publicOrigin);

async function driveEmployee(employee: { email: string }) {
  const browser = await signIn(t, employee.email, undefined, freshIp());
  expect((await browser.get("/api/auth/whoami")).json()).toEqual({ role: "client" });
  expect((await browser.get("/api/client-info")).statusCode).toBe(200);
  const code = (await browser.post("/api/generate-words", { language: "fr" })).json() as {
    id: number;
    words: string[];
  };
  expect((await browser.get(`/api/codes/${code.id}`)).json()).toMatchObject({ status: "live" });
  expect((await browser.get("/api/codes/2147483647")).statusCode).toBe(404);
  expect((await browser.get("/api/codes/2147483648")).statusCode).toBe(400);
  const events = await firstEvent(`/api/codes/${code.id}/events`, { cookie: browser.cookieHeader() });
  expect(events).toContain("event: live");
  // three codes a minute: the fourth is refused 429 with Retry-After
  await browser.post("/api/generate-words");
  await browser.post("/api/generate-words");
  const refused = await browser.post("/api/generate-words");
  expect(refused.statusCode).toBe(429);
  // the widget verifies the first code
  expect((await call("POST", "/api/verify", { body: { words: code.words.join(" ") } })).json()).toMatchObject({
    verified: true,
  });
  // the employer dashboard is not theirs
  expect((await browser.get("/api/employer/me")).statusCode).toBe(403);
  // account
  expect((await browser.get("/api/account")).statusCode).toBe(200);
  expect((await browser.get("/api/account/export")).statusCode).toBe(200);
  expect(
    (
      await browser.post("/api/account/change-password", {
        currentPassword: "Wrong-Pass-42",
        newPassword: "New-Horse-42!",
      })
    ).statusCode,
  ).toBe(400);
  expect((await browser.post("/api/account/sessions/revoke-others")).statusCode).toBe(200);
  expect((await browser.post("/api/account/passkeys/options")).statusCode).toBe(200);
  expect((await browser.post("/api/account/passkeys", { name: "Laptop", response: { id: "x" } })).statusCode).toBe(400);
  expect((await browser.request("PATCH", "/api/account/passkeys/999", { name: "Laptop" })).statusCode).toBe(404);
  expect((await browser.request("DELETE", "/api/account/passkeys/999")).statusCode).toBe(404);
  expect((await browser.post("/api/auth/logout")).statusCode).toBe(200);
  return code;
}

async function driveEmployer(employer: { email: string }, employeeId: number) {
  const boss = await signIn(t, employer.email, undefined, freshIp());
  for (const url of [
    "/api/employer/me",
    "/api/employer/employees",
    "/api/employer/access-codes",
    "/api/employer/sites",
    "/api/employer/reports",
    "/api/employer/reports/top-numbers",
    "/api/employer/reports.csv",
    "/api/employer/activity",
    "/api/employer/alerts",
    "/api/employer/webhook",
    "/api/employer/webhook/deliveries",
    "/api/employer/sso",
    "/api/employer/scim",
    "/api/employer/audit",
    "/api/employer/api-keys",
  ]) {
    expect((await boss.get(url)).statusCode, url).toBe(200);
  }
  expect((await boss.post("/api/employer/generate-access-code", { maxUsers: 5 })).statusCode).toBe(200);
  expect((await boss.post("/api/employer/generate-access-code", { maxUsers: 5 })).statusCode).toBe(409);
  expect((await boss.post("/api/employer/deactivate-employee/2147483647")).statusCode).toBe(404);
  expect((await boss.post("/api/employer/sites", { host: "calls.partner-bank.test" })).statusCode).toBe(201);
  expect((await boss.post("/api/employer/sites", { host: "calls.partner-bank.test" })).statusCode).toBe(409);
  expect((await boss.post("/api/employer/sites/check", { host: "not-ours.partner-bank.test" })).statusCode).toBe(404);
  expect((await boss.request("DELETE", "/api/employer/sites/calls.partner-bank.test")).statusCode).toBe(200);
  expect((await boss.request("PUT", "/api/employer/alerts", { reportsPerHour: 5 })).statusCode).toBe(200);
  expect((await boss.request("PUT", "/api/employer/alerts", { nonsense: 1 })).statusCode).toBe(400);
  expect((await boss.request("PUT", "/api/employer/webhook", { url: "http://127.0.0.1:9/hook" })).statusCode).toBe(200);
  expect((await boss.request("DELETE", "/api/employer/webhook")).statusCode).toBe(200);
  expect((await boss.post("/api/employer/webhook/test")).statusCode).toBe(404);
  expect(
    (await boss.request("PUT", "/api/employer/sso", { issuer: "http://127.0.0.1:9", clientId: "x", clientSecret: "y" }))
      .statusCode,
  ).toBe(400);
  expect((await boss.request("DELETE", "/api/employer/sso")).statusCode).toBeGreaterThanOrEqual(200);
  const created = await boss.post("/api/employer/api-keys", {
    name: "conformance",
    scopes: ["codes:write", "codes:read", "reports:read", "audit:read", "activity:read"],
  });
  expect(created.statusCode).toBe(201);
  const narrow = (await boss.post("/api/employer/api-keys", { name: "narrow", scopes: ["reports:read"] })).json();
  const scimToken = (await boss.post("/api/employer/scim-token")).json().token as string;
  expect((await boss.request("DELETE", `/api/employer/api-keys/${narrow.id}`)).statusCode).toBe(200);
  expect((await boss.request("DELETE", "/api/employer/api-keys/2147483647")).statusCode).toBe(404);
  expect((await boss.post(`/api/employer/deactivate-employee/${employeeId}`)).statusCode).toBe(200);
  return { boss, key: created.json().key as string, narrowKey: narrow.key as string, scimToken };
}

async function driveV1(key: string, narrowKey: string, employeeEmail: string) {
  const auth = { authorization: `Bearer ${key}` };
  const issued = await call("POST", "/api/v1/codes", { headers: auth, body: { employeeEmail, language: "en" } });
  expect(issued.statusCode).toBe(201);
  const id = issued.json().id as number;
  expect((await call("GET", `/api/v1/codes/${id}`, { headers: auth })).statusCode).toBe(200);
  expect(await firstEvent(`/api/v1/codes/${id}/events`, auth)).toContain("event: live");
  expect((await call("GET", "/api/v1/audit?limit=5", { headers: auth })).statusCode).toBe(200);
  expect((await call("GET", "/api/v1/audit?limit=0", { headers: auth })).statusCode).toBe(400);
  expect((await call("GET", "/api/v1/reports", { headers: auth })).statusCode).toBe(200);
  expect((await call("GET", "/api/v1/activity", { headers: auth })).statusCode).toBe(200);
  expect((await call("GET", "/api/v1/codes/2147483647", { headers: auth })).statusCode).toBe(404);
  // Not an id (past the document's pattern): no such code, the route's own 404 (issue 32).
  expect((await call("GET", "/api/v1/codes/2147483648", { headers: auth })).statusCode).toBe(404);
  expect(
    (await call("POST", "/api/v1/codes", { headers: auth, body: { employeeEmail: "no@one.test" } })).statusCode,
  ).toBe(404);
  expect((await call("GET", "/api/v1/activity")).statusCode).toBe(401);
  expect((await call("GET", "/api/v1/activity", { headers: { authorization: "Bearer cpk_wrong" } })).statusCode).toBe(
    401,
  );
  expect(
    (await call("GET", "/api/v1/activity", { headers: { authorization: `Bearer ${narrowKey}` } })).statusCode,
  ).toBe(401);
  // the employee's 3-a-minute limit
  let status = 0;
  for (let i = 0; i < 4 && status !== 429; i++) {
    status = (await call("POST", "/api/v1/codes", { headers: auth, body: { employeeEmail } })).statusCode;
  }
  expect(status).toBe(429);
}

async function driveScim(boss: Browser, token: string, domain: string) {
  const auth = { authorization: `Bearer ${token}` };
  const scim = (method: string, url: string, body?: unknown) =>
    call(method, `/api/scim/v2${url}`, {
      headers: { ...auth, ...(body !== undefined ? { "content-type": "application/scim+json" } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  expect((await scim("GET", "/ServiceProviderConfig")).statusCode).toBe(200);
  expect((await scim("GET", "/ResourceTypes")).statusCode).toBe(200);
  expect((await scim("GET", "/Schemas")).statusCode).toBe(200);
  const userName = uniqueEmail(domain, "scim");
  const user = {
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
    userName,
    name: { givenName: "Sam", familyName: "Provisioned" },
    emails: [{ value: userName, primary: true }],
    active: true,
  };
  const created = await scim("POST", "/Users", user);
  expect(created.statusCode).toBe(201);
  const id = created.json().id as string;
  expect((await scim("POST", "/Users", user)).statusCode).toBe(409);
  expect((await scim("POST", "/Users", { ...user, userName: "x@elsewhere.test" })).statusCode).toBe(400);
  expect((await scim("GET", `/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`)).statusCode).toBe(200);
  expect((await scim("GET", `/Users/${id}`)).statusCode).toBe(200);
  expect((await scim("GET", "/Users/999999")).statusCode).toBe(404);
  expect((await scim("PUT", `/Users/${id}`, { ...user, displayName: "Sam P." })).statusCode).toBe(200);
  const patch = { schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"] };
  expect(
    (await scim("PATCH", `/Users/${id}`, { ...patch, Operations: [{ op: "replace", path: "active", value: false }] }))
      .statusCode,
  ).toBe(200);
  expect((await scim("DELETE", `/Users/${id}`)).statusCode).toBe(204);
  expect((await call("GET", "/api/scim/v2/Users")).statusCode).toBe(401);
  expect(
    (
      await call("POST", "/api/scim/v2/Users", {
        headers: { ...auth, "content-type": "application/xml" },
        body: "<x/>",
      })
    ).statusCode,
  ).toBe(415);
  expect((await boss.request("DELETE", "/api/employer/scim-token")).statusCode).toBe(200);
  expect((await scim("GET", "/ServiceProviderConfig")).statusCode).toBe(401);
}

/** The customer's call status: the backend's token and status calls, and the component's routes. */
async function driveCallStatus(boss: Browser, domain: string) {
  const created = await boss.post("/api/employer/api-keys", {
    name: "status",
    scopes: ["calls:read", "checks:answer"],
  });
  expect(created.statusCode, created.body).toBe(201);
  const key = { authorization: `Bearer ${created.json().key}` };
  const origin = `https://www.${domain}`;
  const body = { customerRef: "C-104233", origin, answer: true };
  const minted = await call("POST", "/api/v1/customers/status-token", { headers: key, body });
  expect(minted.statusCode, minted.body).toBe(201);
  const bad = { ...body, origin: "https://elsewhere.test" };
  expect((await call("POST", "/api/v1/customers/status-token", { headers: key, body: bad })).statusCode).toBe(400);
  const ref = { customerRef: "C-104233" };
  expect((await call("POST", "/api/v1/customers/call-status", { headers: key, body: ref })).statusCode).toBe(200);
  const token = { authorization: `Bearer ${minted.json().token}`, origin };
  expect(await firstEvent("/api/call-status/stream", token)).toContain("event: state");
  const answer = { answer: "confirmed" };
  expect((await call("POST", "/api/call-status/checks/k_none", { headers: token, body: answer })).statusCode).toBe(404);
  const elsewhere = { ...token, origin: "https://elsewhere.test" };
  expect((await call("POST", "/api/call-status/report", { headers: elsewhere, body: {} })).statusCode).toBe(403);
  expect((await call("POST", "/api/call-status/report", { headers: token, body: {} })).statusCode).toBe(201);
  expect((await call("DELETE", "/api/v1/customers/status-tokens", { headers: key, body: ref })).statusCode).toBe(200);
  expect((await call("GET", "/api/call-status/stream", { headers: token })).statusCode).toBe(401);
}

async function driveAdmin(employer: { id: number; email: string }, organisationId: number, domain: string) {
  const { browser: admin } = await signInAdmin(t);
  for (const url of [
    "/api/admin/stats",
    "/api/admin/pending-accounts",
    "/api/admin/active-employers",
    "/api/admin/audit",
    "/api/admin/audit.csv",
    "/api/admin/reports",
    `/api/employer/reports?organisationId=${organisationId}`,
    `/api/employer/activity?organisationId=${organisationId}`,
  ]) {
    expect((await admin.get(url)).statusCode, url).toBe(200);
  }
  expect((await admin.post("/api/admin/generate-employer-access-code", { email: uniqueEmail() })).statusCode).toBe(200);
  expect((await admin.post("/api/admin/activate-account/2147483647")).statusCode).toBe(404);
  expect(
    (await admin.post(`/api/admin/organisations/${organisationId}/sites`, { host: `www2.${domain}` })).statusCode,
  ).toBe(200);
  expect((await admin.post("/api/admin/accounts/2147483647/erase")).statusCode).toBe(404);
  expect((await admin.post("/api/admin/deactivate-by-domain", { domain: "nobody-here.test" })).statusCode).toBeLessThan(
    500,
  );
  expect((await admin.post(`/api/admin/deactivate-employer/${employer.id}`)).statusCode).toBe(200);
}

describe("the server's real answers and the OpenAPI document", () => {
  it("every answer of the main flows is documented: route, status, media type and body schema", async () => {
    const employer = await createEmployer(t);
    const employee = await createEmployee(t, employer.org.id, employer.domain);
    const apiEmployee = await createEmployee(t, employer.org.id, employer.domain);

    await driveSignedOut();
    await driveEmployee(employee);
    const { boss, key, narrowKey, scimToken } = await driveEmployer(employer.user, employee.id);
    await driveV1(key, narrowKey, apiEmployee.email);
    await driveCallStatus(boss, employer.domain);
    await driveScim(boss, scimToken, employer.domain);
    await driveAdmin(employer.user, employer.org.id, employer.domain);
    await t.app.deps.background.idle();

    const check = conformance(document);
    const recorded = answers.filter((a) => !undocumented(a.method, a.route));
    const problems = recorded.flatMap(check);
    expect(problems).toEqual([]);

    // What this covered: most documented operations, and every status class the issue names.
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`),
    );
    const exercised = new Set(recorded.map((a) => `${a.method} ${openapiPath(a.route)}`));
    const missed = operations.filter((o) => !exercised.has(o));
    expect(missed.length, `not exercised: ${missed.join(", ")}`).toBeLessThanOrEqual(operations.length / 5);
    const statuses = new Set(recorded.map((a) => a.status));
    for (const status of [200, 201, 204, 400, 401, 403, 404, 409, 413, 415, 429]) expect(statuses).toContain(status);
  });

  it("lets a path parameter over 100 characters reach its route: never 414, a documented answer in the route's shape", async () => {
    const long = "1".repeat(101);
    for (const [path, methods] of Object.entries(document.paths)) {
      if (!path.includes("{")) continue;
      for (const [method, operation] of Object.entries(methods)) {
        const url = path.replace(/\{[^}]+\}/g, long);
        const res = await call(method.toUpperCase(), url);
        expect(res.statusCode, `${method} ${path}`).toBeGreaterThanOrEqual(400);
        expect(res.statusCode, `${method} ${path}`).toBeLessThan(500);
        expect(Object.keys(operation.responses), `${method} ${path}: ${res.statusCode}`).toContain(
          String(res.statusCode),
        );
        if (path.startsWith("/api/scim/v2")) expect(res.json()).toMatchObject({ detail: expect.any(String) });
        else expect(res.json()).toMatchObject({ message: expect.any(String) });
        expect(res.body.includes(long), `${method} ${path}: the answer echoes the path`).toBe(false);
      }
    }
  });

  it("documents exactly the ids the server takes: 1 to 2147483647", async () => {
    const operation = document.paths["/api/v1/codes/{id}"]?.get as unknown as {
      parameters: Array<{ name: string; schema: { pattern: string } }>;
    };
    const parameter = operation.parameters.find((p) => p.name === "id");
    const pattern = new RegExp(parameter?.schema.pattern ?? "^$");
    for (const id of ["1", "999999999", "2147483647"]) expect(pattern.test(id), id).toBe(true);
    for (const id of ["0", "01", "2147483648", "9999999999", "10000000000"]) expect(pattern.test(id), id).toBe(false);
  });
});
