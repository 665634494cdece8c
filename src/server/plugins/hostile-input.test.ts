/**
 * Hostile input on every route. Walks every route the server registers (plugins/route-table.ts), with the
 * string fields the OpenAPI document lists for it (body, query, path) and those of a well-formed request
 * below, signed in as whoever reaches its handler (an admin, a superuser, an employee, a SCIM token, an API
 * key with every scope), and sends each field in turn as a value PostgreSQL cannot store (NUL, lone
 * surrogates), a 100,000-character string, or a non-ASCII look-alike (Kelvin sign, fullwidth letters,
 * Cyrillic а), the other fields left well-formed. Every answer is a 4xx (or a 2xx where the value is
 * legitimately taken, which a NUL or a lone surrogate never is), never a 5xx, in the route's own error shape
 * (SCIM's under /api/scim/v2), never echoing the value; and no such value reaches any log line.
 */
import { SCIM_SCHEMAS } from "@shared/scim";
import { createEmployee, createEmployer, signInAdmin, TRUST_PROXY_ENV } from "@test/fixtures";
import { Browser, buildTestApp, createUser, signIn, type TestApp } from "@test/helpers";
import { sql } from "drizzle-orm";
import type { InjectOptions, LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const lines: string[] = [];
// Built while the tests are collected, so that each registered route becomes a test of its own.
const t: TestApp = await buildTestApp({ env: TRUST_PROXY_ENV, log: (line) => lines.push(line) });
afterAll(async () => {
  await t.close();
});

type As = "none" | "admin" | "boss" | "employee" | "key" | "scim" | "status";
type Sample = { as: As; params?: Record<string, string>; query?: Record<string, string>; body?: unknown };

let domain = "";
let employeeEmail = "";
/** whom the sign-in samples name: not a signed-in actor, whose sign-in they would lock */
let victimEmail = "";
const NO_ID = "987654";
/** a user the SCIM token provisioned, whom the SCIM samples read and change */
let scimUserId = "";

/** A well-formed request for each route that takes text, and who sends it (so that it reaches the handler). */
function samples(): Record<string, Sample> {
  const someone = `nobody.here@${domain}`;
  const passkey = {
    response: {
      id: "forged",
      rawId: "forged",
      type: "public-key",
      clientExtensionResults: {},
      response: { clientDataJSON: "e30", authenticatorData: "AA", signature: "AA", attestationObject: "AA" },
    },
  };
  const scimUser = {
    schemas: [SCIM_SCHEMAS.user],
    userName: `kate.new@${domain}`,
    externalId: "okta-kate",
    name: { givenName: "Kate", familyName: "Kaplan" },
    displayName: "Kate Kaplan",
    emails: [{ value: `kate.new@${domain}`, primary: true }],
    active: true,
  };
  return {
    "POST /api/auth/login": { as: "none", body: { email: victimEmail, password: "Wrong-Password-1!" } },
    "POST /api/auth/verify-2fa": { as: "none", body: { email: victimEmail, code: "123456" } },
    "POST /api/auth/forgot-password": { as: "none", body: { email: someone } },
    "POST /api/auth/resend-verification": { as: "none", body: { email: someone } },
    "POST /api/auth/reset-password": { as: "none", body: { token: "made-up-token", newPassword: "New-Secret-77!" } },
    "POST /api/auth/verify-email": { as: "none", body: { email: someone, token: "made-up-token" } },
    "POST /api/account/change-password": {
      as: "employee",
      body: { currentPassword: "Not-The-Password-1", newPassword: "New-Secret-77!" },
    },
    "POST /api/account/passkeys": { as: "employee", body: passkey },
    "PATCH /api/account/passkeys/:id": { as: "employee", params: { id: NO_ID }, body: { name: "Kitchen laptop" } },
    "DELETE /api/account/passkeys/:id": { as: "employee", params: { id: NO_ID } },
    "POST /api/auth/passkey/verify": { as: "none", body: passkey },
    "POST /api/employer/auth/validate-employer-access-code": { as: "none", body: { code: "made-up-code" } },
    "POST /api/employer/auth/register-employer": {
      as: "none",
      body: {
        fullName: "Kim Kowalski",
        companyName: "Kestrel Ltd",
        website: "https://kestrel.example",
        email: "kim@kestrel.example",
        password: "Correct-Horse-42!",
        confirmPassword: "Correct-Horse-42!",
        role: "superuser",
        accessCode: "made-up-code",
      },
    },
    "POST /api/auth/validate-access-code": { as: "none", body: { code: "made-up-code" } },
    "POST /api/auth/register-employee": {
      as: "none",
      body: { email: `kai@${domain}`, password: "Correct-Horse-42!", fullName: "Kai Kern", accessCode: "made-up" },
    },
    "POST /api/generate-words": { as: "employee", body: { language: "en" } },
    "GET /api/codes/:id": { as: "employee", params: { id: NO_ID } },
    "GET /api/codes/:id/events": { as: "employee", params: { id: NO_ID } },
    "POST /api/verify": { as: "none", body: { words: "abandon ability able", language: "en" } },
    "GET /api/admin/active-employers": { as: "admin", query: { q: "kestrel", page: "1" } },
    "POST /api/admin/generate-employer-access-code": { as: "admin", body: { email: "kai@kestrel.example" } },
    "POST /api/admin/activate-account/:id": { as: "admin", params: { id: NO_ID } },
    "POST /api/admin/deactivate-employer/:id": { as: "admin", params: { id: NO_ID } },
    "POST /api/admin/deactivate-by-domain": { as: "admin", body: { domain: "nobody-here.example" } },
    "POST /api/admin/accounts/:id/erase": { as: "admin", params: { id: NO_ID } },
    "GET /api/employer/employees": { as: "boss", query: { q: "kate", page: "1" } },
    "GET /api/employer/access-codes": { as: "admin", query: { organisationId: "1" } },
    "POST /api/employer/deactivate-employee/:id": { as: "boss", params: { id: NO_ID } },
    "GET /api/admin/audit": {
      as: "admin",
      query: { actor: "kate", action: "auth.login", organisationId: "1", from: "2026-01-01", to: "2026-12-31" },
    },
    "GET /api/admin/audit.csv": { as: "admin", query: { actor: "kate", action: "auth.login" } },
    "GET /api/employer/audit": { as: "boss", query: { page: "1" } },
    "GET /api/employer/sites": { as: "admin", query: { organisationId: "1" } },
    "POST /api/employer/sites": { as: "boss", body: { host: `shop.${domain}` } },
    "POST /api/employer/sites/check": { as: "boss", body: { host: `shop.${domain}` } },
    "DELETE /api/employer/sites/:host": { as: "boss", params: { host: `gone.${domain}` } },
    "POST /api/admin/organisations/:id/sites": {
      as: "admin",
      params: { id: NO_ID },
      body: { host: "kestrel.example" },
    },
    "POST /api/reports": {
      as: "none",
      body: { callerNumber: "+44 20 7946 0000", claimedName: "Kate", note: "asked for a card number", language: "en" },
    },
    "GET /api/employer/reports": { as: "boss", query: { q: "kate", page: "1" } },
    "GET /api/admin/reports": { as: "admin", query: { q: "kate", page: "1" } },
    "GET /api/employer/reports/top-numbers": { as: "admin", query: { organisationId: "1" } },
    "GET /api/employer/reports.csv": { as: "admin", query: { organisationId: "1" } },
    "GET /api/employer/activity": { as: "admin", query: { organisationId: "1" } },
    "GET /api/employer/alerts": { as: "admin", query: { organisationId: "1" } },
    "GET /api/employer/sso": { as: "admin", query: { organisationId: "1" } },
    "PUT /api/employer/webhook": { as: "boss", body: { url: "http://127.0.0.1:9/hook", events: ["code.verified"] } },
    "POST /api/employer/api-keys": { as: "boss", body: { name: "Kiosk", scopes: ["codes:read"] } },
    "DELETE /api/employer/api-keys/:id": { as: "boss", params: { id: NO_ID } },
    "POST /api/v1/codes": { as: "key", body: { employeeEmail, language: "en" } },
    "GET /api/v1/codes/:id": { as: "key", params: { id: NO_ID } },
    "GET /api/v1/codes/:id/events": { as: "key", params: { id: NO_ID } },
    "POST /api/v1/customers/status-token": {
      as: "key",
      body: { customerRef: "C-555", origin: `https://www.${domain}` },
    },
    // another customer than the status token's, whose tokens it revokes
    "DELETE /api/v1/customers/status-tokens": { as: "key", body: { customerRef: "C-999" } },
    "POST /api/v1/customers/call-status": { as: "key", body: { customerRef: "C-104233" } },
    "OPTIONS /api/call-status/checks/:id": { as: "none", params: { id: "k_nothing" } },
    "POST /api/call-status/checks/:id": { as: "status", params: { id: "k_nothing" }, body: { answer: "denied" } },
    "POST /api/call-status/report": { as: "status", body: { note: "asked me to press Yes", language: "en" } },
    "GET /api/v1/audit": { as: "key", query: { after: "0", limit: "10" } },
    "GET /api/v1/reports": { as: "key", query: { after: "0", limit: "10" } },
    "POST /api/calls": { as: "employee", body: { customerRef: "C-104233", direction: "outbound" } },
    "POST /api/calls/:id/renew": { as: "employee", params: { id: "call_nope" } },
    "POST /api/calls/:id/end": { as: "employee", params: { id: "call_nope" } },
    "POST /api/calls/:id/disown": { as: "employee", params: { id: "call_nope" } },
    "POST /api/calls/:id/customer-check": { as: "employee", params: { id: "call_nope" } },
    "GET /api/calls/:id/events": { as: "employee", params: { id: "call_nope" } },
    "POST /api/v1/calls": { as: "key", body: { employeeEmail, customerRef: "C-104233", direction: "inbound" } },
    "POST /api/v1/calls/:id/end": { as: "key", params: { id: "call_nope" } },
    "POST /api/v1/calls/:id/customer-check": { as: "key", params: { id: "call_nope" } },
    "GET /api/v1/customer-checks/:id": { as: "key", params: { id: "chk_nope" } },
    "POST /api/v1/customer-checks/:id": { as: "key", params: { id: "chk_nope" }, body: { answer: "confirmed" } },
    "POST /api/v1/customers/export": { as: "key", body: { customerRef: "C-104233" } },
    "POST /api/v1/customers/erase": { as: "key", body: { customerRef: "C-104233" } },
    "PUT /api/employer/sso": {
      as: "boss",
      body: { issuer: "http://127.0.0.1:9/realm", clientId: "kestrel-app", clientSecret: "s3cret-kestrel" },
    },
    "GET /api/auth/sso/discover": { as: "none", query: { email: `kate@${domain}` } },
    "GET /api/auth/sso/start": { as: "none", query: { email: `kate@${domain}` } },
    "POST /api/auth/sso/start": { as: "none", body: { email: `kate@${domain}` } },
    "POST /api/admin/organisations/:id/reactivate": { as: "admin", params: { id: NO_ID } },
    "GET /api/scim/v2/ResourceTypes/:id": { as: "scim", params: { id: "User" } },
    "GET /api/scim/v2/Schemas/:id": { as: "scim", params: { id: SCIM_SCHEMAS.user } },
    "GET /api/auth/sso/callback": {
      as: "none",
      query: { code: "made-up", state: "made-up", error: "access_denied", error_description: "no", iss: "https://k" },
    },
    "GET /api/scim/v2/Users": {
      as: "scim",
      query: {
        filter: `userName eq "${employeeEmail}"`,
        startIndex: "1",
        count: "10",
        attributes: "userName",
        excludedAttributes: "emails",
      },
    },
    "POST /api/scim/v2/Users": { as: "scim", body: scimUser },
    "GET /api/scim/v2/Users/:id": { as: "scim", params: { id: scimUserId } },
    "PUT /api/scim/v2/Users/:id": {
      as: "scim",
      params: { id: scimUserId },
      body: { ...scimUser, userName: `kim.scim@${domain}`, emails: [{ value: `kim.scim@${domain}`, primary: true }] },
    },
    "PATCH /api/scim/v2/Users/:id": {
      as: "scim",
      params: { id: scimUserId },
      body: {
        schemas: [SCIM_SCHEMAS.patchOp],
        Operations: [
          { op: "replace", path: "displayName", value: "Kate K" },
          { op: "replace", value: { "name.givenName": "Kate", externalId: "okta-kate" } },
        ],
      },
    },
    "DELETE /api/scim/v2/Users/:id": { as: "scim", params: { id: NO_ID } },
    "GET /api/docs/static/*": { as: "none", params: { "*": "index.css" } },
  };
}

// ---- the hostile values: each made from the well-formed one, so that it still looks like it ----

const FULLWIDTH = (s: string) =>
  s.replace(/[A-Za-z0-9]/g, (c) => String.fromCodePoint((c.codePointAt(0) ?? 0) - 0x20 + 0xff00));
const middle = (s: string, insert: string) => {
  const at = Math.max(1, Math.floor(s.length / 2));
  return `${s.slice(0, at)}${insert}${s.slice(at)}`;
};

/** Values PostgreSQL cannot store in text: always refused. */
const UNSTORABLE = {
  nul: (s: string) => middle(s, "\u0000"),
  "lone high surrogate": (s: string) => middle(s, "\ud800"),
  "lone low surrogate": (s: string) => middle(s, "\udfff"),
};
/** Values a route may take (a name in Cyrillic) or refuse, but never with a 5xx. */
const ODD = {
  "100,000 characters": (s: string) => `${"k".repeat(100_000)}${s}`,
  "Kelvin sign": (s: string) => (/[kK]/.test(s) ? s.replace(/[kK]/g, "\u212a") : `\u212a${s}`),
  fullwidth: FULLWIDTH,
  "Cyrillic а": (s: string) => (/a/.test(s) ? s.replace(/a/g, "\u0430") : `\u0430${s}`),
};
const VARIANTS = Object.entries({ ...UNSTORABLE, ...ODD }).map(([name, make]) => ({
  name,
  make,
  unstorable: name in UNSTORABLE,
}));

/** Percent-encoding that also takes lone surrogates (as the three bytes a careless client sends). */
function percent(s: string): string {
  let out = "";
  for (const c of s) {
    const unit = c.charCodeAt(0);
    if (c.length === 1 && unit >= 0xd800 && unit <= 0xdfff) {
      out += [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 63), 0x80 | (unit & 63)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join("");
    } else out += encodeURIComponent(c);
  }
  return out;
}

/** The forms a value could take in a log line or an answer: as it is, JSON-escaped, percent-encoded. */
function forms(value: string): string[] {
  const probe = value.length > 200 ? value.slice(0, 200) : value;
  return [...new Set([probe, JSON.stringify(probe).slice(1, -1), percent(probe)])];
}

// ---- requests ----

type Part = "params" | "query" | "body";
type Field = { part: Part; path: (string | number)[] };

/** Every string leaf of a value, with its path. */
function stringLeaves(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (typeof value === "string") return [path];
  if (Array.isArray(value)) return value.flatMap((v, i) => stringLeaves(v, [...path, i]));
  if (value && typeof value === "object")
    return Object.entries(value).flatMap(([k, v]) => stringLeaves(v, [...path, k]));
  return [];
}

function getAt(value: unknown, path: (string | number)[]): unknown {
  return path.reduce<unknown>((v, k) => (v as Record<string | number, unknown> | undefined)?.[k], value);
}

function setAt(value: unknown, path: (string | number)[], leaf: string): unknown {
  if (path.length === 0) return leaf;
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<string | number, unknown>;
  copy[head] = setAt(copy[head], rest, leaf);
  return copy;
}

type OpenApiOperation = {
  parameters?: { in: string; name: string; schema?: { type?: string } }[];
  requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, { type?: string }> } }> };
};

/** The text fields the OpenAPI document lists for a route: path and query parameters, top-level body properties. */
function documentedFields(method: string, url: string): Field[] {
  const doc = t.app.swagger() as { paths?: Record<string, Record<string, OpenApiOperation>> };
  const op = doc.paths?.[url.replace(/:([A-Za-z]+)/g, "{$1}")]?.[method.toLowerCase()];
  if (!op) return [];
  const fields: Field[] = [];
  for (const p of op.parameters ?? []) {
    // integer parameters (?limit=) still arrive as text
    if (p.in === "path") fields.push({ part: "params", path: [p.name] });
    if (p.in === "query") fields.push({ part: "query", path: [p.name] });
  }
  for (const media of Object.values(op.requestBody?.content ?? {})) {
    for (const [name, schema] of Object.entries(media.schema?.properties ?? {})) {
      if (schema.type === undefined || schema.type === "string") fields.push({ part: "body", path: [name] });
    }
  }
  return fields;
}

const routeParams = (url: string) => [...url.matchAll(/:([A-Za-z]+)|\*$/g)].map((m) => m[1] ?? "*");

/** Every field to try on a route: the sample's text leaves, and the documented ones it leaves out. */
function fieldsOf(method: string, url: string, sample: Sample | undefined): Field[] {
  const fields: Field[] = [];
  const seen = new Set<string>();
  const add = (f: Field) => {
    const key = `${f.part}:${f.path.join(".")}`;
    if (seen.has(key)) return;
    seen.add(key);
    fields.push(f);
  };
  for (const part of ["params", "query", "body"] as const) {
    for (const path of stringLeaves(sample?.[part])) add({ part, path });
  }
  for (const name of routeParams(url)) add({ part: "params", path: [name] });
  for (const f of documentedFields(method, url)) add(f);
  return fields;
}

let ipSeq = 0;
const freshIp = () => {
  ipSeq++;
  return `203.0.${(ipSeq >> 8) & 255}.${ipSeq & 255}`;
};

const browsers = {} as Record<"admin" | "boss" | "employee" | "none", Browser>;
const emails = {} as Record<"admin" | "boss" | "employee", string>;
let scimToken = "";
let apiKey = "";
/** a status token of the call-status component (may answer), and the origin it was minted for */
let statusToken = "";

/** Signs `as` in again if an earlier route ended its session (a new password, another's erasure…). */
async function stillSignedIn(as: As) {
  if (as !== "admin" && as !== "boss" && as !== "employee") return;
  const whoami = await browsers[as].get("/api/auth/whoami");
  if (whoami.statusCode !== 200) browsers[as] = await signIn(t, emails[as], undefined, freshIp());
}

async function send(method: string, url: string, sample: Sample, request: Required<Pick<Sample, Part>>) {
  let path = url;
  for (const name of routeParams(url)) {
    const value = String(request.params[name] ?? "x");
    path = name === "*" ? path.replace(/\*$/, percent(value)) : path.replace(`:${name}`, percent(value));
  }
  const query = Object.entries(request.query as Record<string, string>)
    .map(([k, v]) => `${k}=${percent(String(v))}`)
    .join("&");
  const headers: Record<string, string> = { "x-forwarded-for": freshIp() };
  if (sample.as === "admin" || sample.as === "boss" || sample.as === "employee" || sample.as === "none") {
    const browser = browsers[sample.as];
    Object.assign(headers, {
      cookie: browser.cookieHeader(),
      "x-xsrf-token": browser.cookie("XSRF-TOKEN") ?? "",
      origin: t.config.publicOrigin,
    });
  }
  if (sample.as === "scim") headers.authorization = `Bearer ${scimToken}`;
  if (sample.as === "key") headers.authorization = `Bearer ${apiKey}`;
  if (sample.as === "status")
    Object.assign(headers, { authorization: `Bearer ${statusToken}`, origin: `https://www.${domain}` });
  const hasBody = !["GET", "HEAD", "DELETE", "OPTIONS"].includes(method) || request.body !== undefined;
  if (hasBody) {
    headers["content-type"] = url.startsWith("/api/scim/v2") ? "application/scim+json" : "application/json";
  }
  return t.app.inject({
    method: method as InjectOptions["method"],
    url: query ? `${path}?${query}` : path,
    headers,
    ...(hasBody ? { payload: JSON.stringify(request.body ?? {}) } : {}),
  });
}

/** What every answer to a hostile value must be, whatever the route. */
function expectSafeAnswer(
  res: LightMyRequestResponse,
  url: string,
  what: string,
  value: string,
  rules: { unstorable: boolean; noEcho: boolean },
) {
  expect(res.statusCode, `${what}: ${res.body.slice(0, 300)}`).toBeLessThan(500);
  if (rules.unstorable) {
    expect(res.statusCode, `${what} was taken: ${res.body.slice(0, 300)}`).toBeGreaterThanOrEqual(400);
  }
  if (res.statusCode < 400) return;
  if (rules.noEcho) {
    for (const form of forms(value))
      expect(res.body.includes(form), `${what}: the answer echoes the value`).toBe(false);
  }
  if (url.startsWith("/api/scim/v2")) {
    expect(res.headers["content-type"], what).toMatch(/^application\/scim\+json/);
    expect(res.json(), what).toMatchObject({ schemas: [SCIM_SCHEMAS.error], status: String(res.statusCode) });
  } else if (url.startsWith("/api/")) {
    expect(typeof res.json().message, `${what}: ${res.body.slice(0, 300)}`).toBe("string");
  }
}

function expectNotLogged(from: number, what: string, values: string[]) {
  const log = lines.slice(from).join("\n");
  for (const value of values) {
    for (const form of forms(value)) expect(log.includes(form), `${what}: the log holds the value`).toBe(false);
  }
}

beforeAll(async () => {
  const employer = await createEmployer(t);
  domain = employer.domain;
  const employee = await createEmployee(t, employer.org.id, domain, { fullName: "Kate Kaplan" });
  employeeEmail = employee.email;
  victimEmail = (await createEmployee(t, employer.org.id, domain, { fullName: "Vic Tim" })).email;
  const admin = await signInAdmin(t);
  Object.assign(emails, { admin: admin.admin.email, boss: employer.user.email, employee: employee.email });
  Object.assign(browsers, {
    admin: admin.browser,
    boss: await signIn(t, employer.user.email, undefined, freshIp()),
    employee: await signIn(t, employee.email, undefined, freshIp()),
  });
  const token = await browsers.boss.post("/api/employer/scim-token");
  expect(token.statusCode, token.body).toBe(201);
  scimToken = token.json().token;
  const key = await browsers.boss.post("/api/employer/api-keys", {
    name: "every scope",
    scopes: ["codes:write", "codes:read", "reports:read", "audit:read", "activity:read", "calls:write", "calls:read"],
  });
  expect(key.statusCode, key.body).toBe(201);
  apiKey = key.json().key;
  // A key may not hold checks:answer beside calls:write: the component's answering token comes from another.
  const answerKey = await browsers.boss.post("/api/employer/api-keys", {
    name: "answers",
    scopes: ["calls:read", "checks:answer"],
  });
  expect(answerKey.statusCode, answerKey.body).toBe(201);
  const minted = await t.app.inject({
    method: "POST",
    url: "/api/v1/customers/status-token",
    headers: { authorization: `Bearer ${answerKey.json().key}`, "content-type": "application/json" },
    payload: JSON.stringify({ customerRef: "C-104233", origin: `https://www.${domain}`, answer: true }),
  });
  expect(minted.statusCode, minted.body).toBe(201);
  statusToken = minted.json().token;
  const provisioned = await t.app.inject({
    method: "POST",
    url: "/api/scim/v2/Users",
    headers: { authorization: `Bearer ${scimToken}`, "content-type": "application/scim+json" },
    payload: JSON.stringify({ schemas: [SCIM_SCHEMAS.user], userName: `kim.scim@${domain}`, active: true }),
  });
  expect(provisioned.statusCode, provisioned.body).toBe(201);
  scimUserId = provisioned.json().id;
  // nobody signed in, but with the CSRF token the web app would have
  browsers.none = new Browser(t.app, freshIp(), t.config.publicOrigin);
  await browsers.none.get("/api/auth/whoami");
}, 60_000);

const routes = t.app.registeredRoutes.filter(
  (r) => !(r.method === "HEAD" && t.app.registeredRoutes.some((g) => g.method === "GET" && g.url === r.url)),
);
const exercised = new Set<string>();

describe("no route answers hostile text with a 5xx, echoes it, or logs it", () => {
  it("finds the routes", () => {
    expect(routes.length).toBeGreaterThan(50);
  });

  it.each(routes.map((r) => [`${r.method} ${r.url}`, r] as const))("%s", async (name, route) => {
    const sample = samples()[name];
    const fields = fieldsOf(route.method, route.url, sample);
    if (fields.length === 0) return;
    expect(sample, `${name} takes text: add a well-formed request to samples()`).toBeDefined();
    if (!sample) return;
    exercised.add(name);
    await stillSignedIn(sample.as);
    const from = lines.length;
    const plain = await send(route.method, route.url, sample, {
      params: { ...sample.params },
      query: { ...sample.query },
      body: sample.body,
    });
    // The well-formed request reaches the route: its caller is let in (a session with CSRF, the token, the key).
    const refusedCaller = ["auth.not_signed_in", "csrf.failed", "csrf.foreign_origin", "forbidden"];
    const code = String(plain.headers["content-type"] ?? "").includes("json") ? plain.json()?.code : undefined;
    expect(refusedCaller, `${name}: ${plain.body.slice(0, 200)}`).not.toContain(code);
    if (sample.as === "scim" || sample.as === "key") expect(plain.statusCode, plain.body.slice(0, 200)).not.toBe(401);
    const sent: string[] = [];
    for (const field of fields) {
      const base = String(getAt(sample[field.part], field.path) ?? "plain");
      for (const variant of VARIANTS) {
        // A URL cannot carry a lone surrogate (its bytes decode to U+FFFD): one of the two is enough there.
        if (field.part !== "body" && variant.name === "lone low surrogate") continue;
        const value = variant.make(base);
        sent.push(value);
        const request = {
          params: { ...sample.params },
          query: { ...sample.query },
          body: sample.body,
          [field.part]: setAt(sample[field.part] ?? {}, field.path, value),
        } as Required<Pick<Sample, Part>>;
        const what = `${variant.name} in ${field.part}.${field.path.join(".")}`;
        const unstorable = variant.unstorable && (field.part === "body" || variant.name === "nul");
        // An answer may quote a look-alike it refuses from a body ('Unknown operation "…"'), never a NUL, a
        // surrogate, a long string, or anything from the URL.
        const noEcho = unstorable || field.part !== "body" || variant.name.startsWith("100,000");
        const res = await send(route.method, route.url, sample, request);
        expectSafeAnswer(res, route.url, what, value, { unstorable, noEcho });
      }
    }
    await t.app.deps.background.idle();
    expectNotLogged(from, name, sent);
  });

  it("tried every sample: each names a route that takes text", () => {
    expect([...exercised].sort()).toEqual(Object.keys(samples()).sort());
  });
});

/** A SCIM call with the test's token (or none), as an identity provider makes it. */
const scimCall = (url: string, token: string | null = scimToken) =>
  t.app.inject({
    method: "GET",
    url,
    headers: { "x-forwarded-for": freshIp(), ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });

function expectScimError(res: LightMyRequestResponse, status: number, scimType?: string) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers["content-type"]).toMatch(/^application\/scim\+json/);
  expect(res.json()).toMatchObject({
    schemas: [SCIM_SCHEMAS.error],
    status: String(status),
    ...(scimType ? { scimType } : {}),
  });
}

describe("what real clients sent", () => {
  it.each([
    ["userName", "%00", "a NUL"],
    ["userName", "\\u0000", "an escaped NUL"],
    ["externalId", "\\u0000", "an escaped NUL"],
    ["emails.value", "%00", "a NUL"],
    ["emails.value", "\\u0000", "an escaped NUL"],
  ])(
    "GET /Users?filter=%s eq a value with %s is a SCIM 400 invalidFilter, and the log holds none of it",
    async (attribute, nul) => {
      const from = lines.length;
      const email = `a${nul}b@${domain}`;
      const res = await scimCall(`/api/scim/v2/Users?filter=${encodeURIComponent(`${attribute} eq "`)}${email}%22`);
      expectScimError(res, 400, "invalidFilter");
      await t.app.deps.background.idle();
      expect(lines.slice(from).join("\n")).not.toContain(`b@${domain}`);
    },
  );

  it("a long SCIM id: 401 without a token, then SCIM's own 404, never a 414 quoting the URL", async () => {
    for (const id of ["1".repeat(101), "k".repeat(5000), `${"9".repeat(120)}x`]) {
      const url = `/api/scim/v2/Users/${id}`;
      const refused = await scimCall(url, null);
      expectScimError(refused, 401);
      const missing = await scimCall(url);
      expectScimError(missing, 404);
      for (const res of [refused, missing]) expect(res.body).not.toContain(id.slice(0, 50));
    }
  });

  it("a long /api/v1 id: 401 without a key, then the route's own 404 {message}, never a 414 quoting the URL", async () => {
    for (const id of ["1".repeat(101), "k".repeat(5000)]) {
      for (const url of [`/api/v1/codes/${id}`, `/api/v1/codes/${id}/events`]) {
        const call = (key: string | null) =>
          t.app.inject({
            method: "GET",
            url,
            headers: { "x-forwarded-for": freshIp(), ...(key ? { authorization: `Bearer ${key}` } : {}) },
          });
        const refused = await call(null);
        expect(refused.statusCode, refused.body).toBe(401);
        const missing = await call(apiKey);
        expect(missing.statusCode, missing.body).toBe(404);
        for (const res of [refused, missing]) {
          expect(typeof res.json().message).toBe("string");
          expect(res.body).not.toContain(id.slice(0, 50));
        }
      }
    }
  });

  it("a path that does not decode is a 400 that does not quote it, in SCIM's shape under /api/scim/v2", async () => {
    const scim = await scimCall("/api/scim/v2/Users/%E0%A4%Azq9");
    expectScimError(scim, 400);
    expect(scim.body).not.toContain("zq9");
    const other = await t.app.inject({ method: "GET", url: "/api/v1/codes/%zzq9" });
    expect(other.statusCode).toBe(400);
    expect(typeof other.json().message).toBe("string");
    expect(other.body).not.toContain("zq9");
  });

  it("a NUL in a header that reaches the database (User-Agent) is a 400, and the log keeps none of it", async () => {
    const from = lines.length;
    const agent = "Mozilla/5.0 zq9\u0000agent";
    const res = await new Browser(t.app, freshIp(), t.config.publicOrigin).post(
      "/api/auth/login",
      { email: victimEmail, password: "Wrong-Password-1!" },
      { "user-agent": agent },
    );
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().code).toBe("unstorable_text");
    await t.app.deps.background.idle();
    for (const form of forms(agent)) expect(lines.slice(from).join("\n")).not.toContain(form);
  });
});

describe("an error line holds nothing a client sent", () => {
  it("a database error keeps its SQLSTATE and constraint, never the query's parameters or the values it quotes", async () => {
    const email = `zq9-taken.${Date.now()}@example.com`;
    await createUser(t, { email });
    const duplicate = await createUser(t, { email }).catch((e: unknown) => e);
    const notANumber = await t.database.db.execute(sql`select ${"zq9-not-a-number"}::int`).catch((e: unknown) => e);
    expect(duplicate).toBeInstanceOf(Error);
    expect(notANumber).toBeInstanceOf(Error);
    const from = lines.length;
    t.app.log.error({ err: duplicate }, "unhandled error");
    t.app.log.error({ err: notANumber }, "unhandled error");
    const log = lines.slice(from).join("\n");
    expect(log).toContain("23505");
    expect(log).toContain("22P02");
    expect(log).toContain("users_email");
    expect(log).not.toContain("zq9");
  });
});
