/**
 * Walks every route the server registers (plugins/route-table.ts) as a caller without a session, and holds
 * each to the rule of lib/anonymous-access.ts:
 * 1. A route that answers such a caller with anything but 401 declares `config.anonymous` (exempt: GET
 *    routes outside /api, and Swagger UI under /api/docs).
 * 2. A route declaring a limit per client address has a request in SAMPLES below that would write (made-up
 *    but well-formed, so it passes validation), and a flood of it from one address answers 429 past the
 *    declared limit and then grows no table but `rate_limits` by more than 3 rows (the sparse refusal audits).
 * 3. Any other route (read-only, or answering 401) grows nothing at all under 10 requests: a 401 that writes
 *    (an audited refusal) must declare its limit too.
 * A new anonymous route (single sign-on, SCIM, /api/v1…) therefore declares its limit in its route config
 * and adds its sample here; until it does, this test names it.
 */
import { randomUUID } from "node:crypto";
import type { AnonymousAccess } from "@server/lib/anonymous-access";
import { buildTestApp, type TestApp } from "@test/helpers";
import { sql } from "drizzle-orm";
import type { InjectOptions } from "fastify";
import { afterAll, describe, expect, it } from "vitest";

// Built while the tests are collected, so that each registered route becomes a test of its own.
const t: TestApp = await buildTestApp();
afterAll(async () => {
  await t.close();
});

type Sample = { body?: (i: number) => unknown; url?: string; headers?: Record<string, string> };

const email = (i: number) => `flood-${i}-${randomUUID().slice(0, 8)}@example.com`;

/** A made-up but well-formed request for each route that may write; `i` numbers the flood's requests. */
const SAMPLES: Record<string, Sample> = {
  "POST /api/auth/login": { body: (i) => ({ email: email(i), password: "Wrong-Password-1!" }) },
  "POST /api/auth/verify-2fa": { body: (i) => ({ email: email(i), code: "123456" }) },
  "POST /api/auth/forgot-password": { body: (i) => ({ email: email(i) }) },
  "POST /api/auth/resend-verification": { body: (i) => ({ email: email(i) }) },
  "POST /api/auth/reset-password": { body: (i) => ({ token: `made-up-${i}`, newPassword: "New-Secret-77!" }) },
  "POST /api/auth/verify-email": { body: (i) => ({ email: email(i), token: `made-up-${i}` }) },
  "POST /api/employer/auth/validate-employer-access-code": { body: (i) => ({ code: `made-up-${i}` }) },
  "POST /api/employer/auth/register-employer": {
    body: (i) => ({
      fullName: "Flo Flood",
      companyName: "Flood Ltd",
      website: "https://flood.example",
      email: email(i),
      password: "Correct-Horse-42!",
      confirmPassword: "Correct-Horse-42!",
      role: "superuser",
      accessCode: `made-up-${i}`,
    }),
  },
  "POST /api/auth/validate-access-code": { body: (i) => ({ code: `made-up-${i}` }) },
  "POST /api/auth/register-employee": {
    body: (i) => ({ email: email(i), password: "Correct-Horse-42!", fullName: "Flo Flood", accessCode: `x-${i}` }),
  },
  "POST /api/verify": { body: () => ({ words: "abandon ability able" }) },
  "POST /api/reports": { body: (i) => ({ note: `flood ${i}` }) },
  "POST /api/auth/passkey/options": {},
  "POST /api/auth/passkey/verify": {
    body: (i) => ({
      response: {
        id: `forged-${i}`,
        rawId: `forged-${i}`,
        type: "public-key",
        clientExtensionResults: {},
        response: { clientDataJSON: "e30", authenticatorData: "AA", signature: "AA" },
      },
    }),
  },
  // Single sign-on: a made-up e-mail, state and code (each request counted before any work).
  "GET /api/auth/sso/discover": { url: "/api/auth/sso/discover?email=flood%40example.com" },
  "POST /api/auth/sso/start": { body: () => ({ email: "flood@example.com" }) },
  // The GET starts a flow only when the browser says it navigated from CallProof's own page.
  "GET /api/auth/sso/start": {
    url: "/api/auth/sso/start?email=flood%40example.com",
    headers: { "sec-fetch-site": "same-origin" },
  },
  "GET /api/auth/sso/callback": { url: "/api/auth/sso/callback?state=made-up&code=made-up" },
  // /api/v1 without a key: each refusal is counted per address (and audited sparsely).
  "POST /api/v1/codes": { body: () => ({ employeeEmail: "agent@example.com" }) },
  "GET /api/v1/codes/:id": {},
  "GET /api/v1/codes/:id/events": {},
  "GET /api/v1/audit": {},
  "GET /api/v1/reports": {},
  "GET /api/v1/activity": {},
  "POST /api/v1/customers/status-token": { body: () => ({ customerRef: "C-1", origin: "https://www.example.com" }) },
  "DELETE /api/v1/customers/status-tokens": { body: () => ({ customerRef: "C-1" }) },
  "POST /api/v1/customers/call-status": { body: () => ({ customerRef: "C-1" }) },
  "POST /api/v1/calls": {
    body: () => ({ employeeEmail: "agent@example.com", customerRef: "C-1", direction: "outbound" }),
  },
  "POST /api/v1/calls/:id/end": {},
  "POST /api/v1/calls/:id/customer-check": {},
  "GET /api/v1/customer-checks/:id": {},
  "POST /api/v1/customer-checks/:id": { body: () => ({ answer: "confirmed" }) },
  "POST /api/v1/customers/export": { body: () => ({ customerRef: "C-1" }) },
  "POST /api/v1/customers/erase": { body: () => ({ customerRef: "C-1" }) },
  // SCIM without a token: each refusal is counted per address (and audited sparsely).
  "GET /api/scim/v2/ServiceProviderConfig": {},
  "GET /api/scim/v2/ResourceTypes": {},
  "GET /api/scim/v2/ResourceTypes/:id": {},
  "GET /api/scim/v2/Schemas": {},
  "GET /api/scim/v2/Schemas/:id": {},
  "GET /api/scim/v2/Users": {},
  "POST /api/scim/v2/Users": { body: (i) => ({ userName: `flood${i}@example.com` }) },
  "GET /api/scim/v2/Users/:id": {},
  "PUT /api/scim/v2/Users/:id": { body: (i) => ({ userName: `flood${i}@example.com` }) },
  "PATCH /api/scim/v2/Users/:id": { body: () => ({ Operations: [{ op: "replace", value: { active: false } }] }) },
  "DELETE /api/scim/v2/Users/:id": {},
};

/** Tables written by the server's own jobs or by the limiter itself, not by a request. */
const NOT_COUNTED = new Set(["rate_limits", "audit_checkpoints", "audit_chain", "audit_chain_mark"]);

/** The row count of every table, one statement. */
async function rowCounts(): Promise<Record<string, number>> {
  const tables = (
    await t.database.db.rows<{ name: string }>(sql`
      select table_name as name from information_schema.tables
      where table_schema = current_schema() and table_type = 'BASE TABLE' and table_name not like '__drizzle%'`)
  )
    .map((r) => r.name)
    .filter((name) => !NOT_COUNTED.has(name));
  const pairs = tables.map((name) => sql`${name}::text, (select count(*) from ${sql.identifier(name)})::int`);
  const [row] = await t.database.db.rows<{ counts: Record<string, number> }>(
    sql`select json_build_object(${sql.join(pairs, sql`, `)}) as counts`,
  );
  return row?.counts ?? {};
}

/** The tables that grew between two counts, with how much. */
function growth(before: Record<string, number>, after: Record<string, number>) {
  const grew: Record<string, number> = {};
  for (const [name, n] of Object.entries(after)) if (n > (before[name] ?? 0)) grew[name] = n - (before[name] ?? 0);
  return grew;
}
const total = (grew: Record<string, number>) => Object.values(grew).reduce((a, b) => a + b, 0);

let addressSeq = 0;
/** A caller without a session at an address of its own: a CSRF token, as the web app would have one. */
async function stranger() {
  addressSeq++;
  const remoteAddress = `198.18.${addressSeq >> 8}.${addressSeq & 255}`;
  const first = await t.app.inject({ method: "GET", url: "/api/auth/whoami", remoteAddress });
  const token = first.cookies.find((c) => c.name === "XSRF-TOKEN")?.value ?? "";
  return (method: string, url: string, body?: unknown, extra: Record<string, string> = {}) =>
    t.app.inject({
      method: method as InjectOptions["method"],
      url,
      remoteAddress,
      headers: {
        cookie: `XSRF-TOKEN=${token}`,
        "x-xsrf-token": token,
        origin: t.config.publicOrigin,
        ...extra,
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
      },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
}

/** The route's path with its parameters filled in. */
const concrete = (url: string) => url.replace(/:[A-Za-z]+/g, "1").replace(/\*$/, "x");

const exempt = (method: string, url: string) =>
  url.startsWith("/api/docs") || (!url.startsWith("/api") && (method === "GET" || method === "HEAD"));

const routes = t.app.registeredRoutes.filter(
  (r) =>
    !exempt(r.method, r.url) &&
    // HEAD routes Fastify adds for GET routes answer the same as their GET.
    !(r.method === "HEAD" && t.app.registeredRoutes.some((g) => g.method === "GET" && g.url === r.url)),
);
const exercised = new Set<string>();

describe("every anonymous route is limited per client address before it writes", () => {
  it("finds the routes", () => {
    expect(routes.length).toBeGreaterThan(50);
  });

  it.each(routes.map((r) => [`${r.method} ${r.url}`, r] as const))(
    "%s",
    async (name, route) => {
      const declared = (route.config as { anonymous?: AnonymousAccess } | undefined)?.anonymous;
      const sample = SAMPLES[name];
      const url = sample?.url ?? concrete(route.url);
      const send = await stranger();
      const request = (i: number) => send(route.method, url, sample?.body?.(i), sample?.headers);
      await t.app.deps.background.idle();

      if (declared && "limit" in declared) {
        expect(sample, `${name} declares a limit: add a request to SAMPLES that would write`).toBeDefined();
        const { perAddress, refusedWith } = declared.limit;
        // Up to the declared limit the route may do its work (and write).
        for (let i = 0; i < perAddress; i++) await request(i);
        await t.app.deps.background.idle();
        const atLimit = await rowCounts();
        const answers: number[] = [];
        for (let i = perAddress; i < perAddress + 25; i++) answers.push((await request(i)).statusCode);
        await t.app.deps.background.idle();
        expect(new Set(answers), `past its declared ${perAddress} requests`).toEqual(new Set([refusedWith]));
        const grew = growth(atLimit, await rowCounts());
        expect(total(grew), `25 refused requests added ${JSON.stringify(grew)}`).toBeLessThanOrEqual(3);
        exercised.add(name);
        return;
      }

      const before = await rowCounts();
      const answers: number[] = [];
      for (let i = 0; i < 10; i++) answers.push((await request(i)).statusCode);
      await t.app.deps.background.idle();
      const grew = growth(before, await rowCounts());
      if (!declared) {
        expect(
          answers.filter((s) => s !== 401),
          `${name} answers a caller without a session: declare config.anonymous (lib/anonymous-access.ts)`,
        ).toEqual([]);
      }
      expect(
        grew,
        `10 anonymous requests wrote: count them per client address before any write and declare the limit`,
      ).toEqual({});
    },
    300_000,
  );

  it("exercised every sample: the routes known to take anonymous writes are all declared", () => {
    expect([...exercised].sort()).toEqual(Object.keys(SAMPLES).sort());
  });
});
