import { auditChain, auditLog, callReports, identityCodes } from "@server/db/schema";
import { WORD_LISTS } from "@server/features/codes/words";
import { writeAuditEntry } from "@server/lib/audit";
import { API_KEY_LIMITS, API_KEY_SCOPES, API_KEY_TEXT, type ApiKeyScope } from "@shared/api-keys";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import type { CodeStatus } from "@shared/codes";
import { IDENTITY_CODE } from "@shared/constants";
import { MESSAGES } from "@shared/messages";
import { openEventStream } from "@test/event-stream";
import { auditRows, createEmployee, createEmployer, freshIp, storeCode, TRUST_PROXY_ENV, verify } from "@test/fixtures";
import { buildTestApp, createUser, signedIn, type TestApp } from "@test/helpers";
import { desc, eq, inArray } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp({ env: TRUST_PROXY_ENV, listen: true });
});
afterEach(async () => {
  await t?.close();
});

/** An organisation with a superuser, an employee and a key holding `scopes`. */
async function organisationWithKey(
  scopes: readonly ApiKeyScope[] = API_KEY_SCOPES.filter((s) => s !== "checks:answer"),
) {
  const employer = await createEmployer(t);
  const employee = await createEmployee(t, employer.org.id, employer.domain, { fullName: "Ada Agent" });
  const browser = await signedIn(t, employer.user);
  const res = await browser.post("/api/employer/api-keys", { name: `key ${scopes.join(" ")}`, scopes });
  expect(res.statusCode, res.body).toBe(201);
  return { ...employer, employee, browser, key: res.json().key as string, keyId: res.json().id as number };
}

/** A call as an integration makes it: the key, no cookie, its own client address. */
function call(
  key: string | null,
  method: "GET" | "POST",
  url: string,
  body?: object,
  headers: Record<string, string> = {},
) {
  return t.app.inject({
    method,
    url,
    headers: {
      "x-forwarded-for": headers["x-forwarded-for"] ?? "192.0.2.10",
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...headers,
    },
    ...(body ? { payload: body } : {}),
  });
}

describe("/api/v1 scopes and keys", () => {
  it("each scope allows its own calls and nothing else (403 naming the scope)", async () => {
    const all = await organisationWithKey(["codes:read"]);
    const codeId = await storedCodeId(all.employee.id);
    const keys = new Map<ApiKeyScope, string>();
    const keyIds = new Map<ApiKeyScope, number>();
    for (const scope of API_KEY_SCOPES) {
      const res = await all.browser.post("/api/employer/api-keys", { name: scope, scopes: [scope] });
      keys.set(scope, res.json().key);
      keyIds.set(scope, res.json().id);
    }
    // the code has expired, so its event stream ends at once
    t.clock.advance(IDENTITY_CODE.lifetimeMs + 1_000);
    const calls: Array<{ scope: ApiKeyScope; method: "GET" | "POST"; url: string; body?: object; status: number }> = [
      {
        scope: "codes:write",
        method: "POST",
        url: "/api/v1/codes",
        body: { employeeEmail: all.employee.email },
        status: 201,
      },
      { scope: "codes:read", method: "GET", url: `/api/v1/codes/${codeId}`, status: 200 },
      { scope: "codes:read", method: "GET", url: `/api/v1/codes/${codeId}/events`, status: 200 },
      { scope: "reports:read", method: "GET", url: "/api/v1/reports", status: 200 },
      { scope: "audit:read", method: "GET", url: "/api/v1/audit", status: 200 },
      { scope: "activity:read", method: "GET", url: "/api/v1/activity", status: 200 },
    ];
    for (const [scope, key] of keys) {
      for (const c of calls) {
        const res = await call(key, c.method, c.url, c.body);
        if (c.scope === scope) {
          expect(res.statusCode, `${scope} ${c.url}: ${res.body}`).toBe(c.status);
        } else {
          expect(res.statusCode, `${scope} ${c.url}`).toBe(403);
          expect(res.json()).toEqual({ message: API_KEY_TEXT.missingScope(c.scope), code: "api.scope_missing" });
          expect(res.json().message).toContain(c.scope);
        }
      }
    }
    const events = await call(keys.get("codes:read") ?? "", "GET", `/api/v1/codes/${codeId}/events`);
    expect(events.headers["content-type"]).toContain("text/event-stream");
    expect(events.body).toContain("event: expired");
    // Use is audited by kind, not per call: one event per scope used.
    const uses = await auditRows(t, AUDIT_ACTIONS.useApiKey);
    const succeeded = uses.filter((u) => u.outcome === "success");
    expect(succeeded.map((u) => `${u.target} ${(u.detail as { kind: string }).kind}`).sort()).toEqual(
      [...keyIds]
        .filter(([scope]) => calls.some((c) => c.scope === scope))
        .map(([scope, id]) => `${id} ${scope}`)
        .sort(),
    );
  });

  it("takes only Bearer keys: a session cookie is 401, no CSRF token is needed, no CORS is offered, no cookie is set", async () => {
    const org = await organisationWithKey();
    const cookie = org.browser.cookieHeader();
    const withCookie = await t.app.inject({ method: "GET", url: "/api/v1/activity", headers: { cookie } });
    expect(withCookie.statusCode).toBe(401);
    expect(withCookie.json().message).toBe(API_KEY_TEXT.missingKey);
    const posted = await t.app.inject({
      method: "POST",
      url: "/api/v1/codes",
      headers: { cookie, "x-xsrf-token": org.browser.cookie("XSRF-TOKEN") ?? "", origin: t.config.publicOrigin },
      payload: { employeeEmail: org.employee.email },
    });
    expect(posted.statusCode).toBe(401);

    const res = await call(
      org.key,
      "POST",
      "/api/v1/codes",
      { employeeEmail: org.employee.email },
      {
        origin: "https://elsewhere.example",
      },
    );
    expect(res.statusCode, res.body).toBe(201);
    expect(res.headers["access-control-allow-origin"]).toBeUndefined();
    expect(res.headers["set-cookie"]).toBeUndefined();
    const preflight = await t.app.inject({
      method: "OPTIONS",
      url: "/api/v1/codes",
      headers: { origin: "https://elsewhere.example", "access-control-request-method": "POST" },
    });
    expect(preflight.headers["access-control-allow-origin"]).toBeUndefined();

    for (const authorization of [
      "",
      "Bearer",
      "Basic abc",
      "Bearer cpk_short",
      `Bearer ${org.key}x`,
      `Token ${org.key}`,
    ]) {
      const refused = await t.app.inject({ method: "GET", url: "/api/v1/activity", headers: { authorization } });
      expect(refused.statusCode, authorization).toBe(401);
    }
  });

  it("answers 401 for a revoked key at once", async () => {
    const org = await organisationWithKey();
    expect((await call(org.key, "GET", "/api/v1/activity")).statusCode).toBe(200);
    expect((await org.browser.request("DELETE", `/api/employer/api-keys/${org.keyId}`)).statusCode).toBe(200);
    const res = await call(org.key, "GET", "/api/v1/activity");
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ message: API_KEY_TEXT.invalidKey, code: "api.key_invalid" });
  });

  it("allows 600 calls a minute per key, then 429 with Retry-After", async () => {
    const org = await organisationWithKey(["codes:read"]);
    for (let i = 0; i < API_KEY_LIMITS.requestsPerMinute; i++) {
      const res = await call(org.key, "GET", "/api/v1/codes/999999999");
      if (res.statusCode !== 404) throw new Error(`call ${i + 1}: ${res.statusCode} ${res.body}`);
    }
    const refused = await call(org.key, "GET", "/api/v1/codes/999999999");
    expect(refused.statusCode).toBe(429);
    expect(refused.json().message).toBe(API_KEY_TEXT.tooManyRequests);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers["retry-after"])).toBeLessThanOrEqual(60);
    // A minute later it works again.
    t.clock.advance(60_001);
    expect((await call(org.key, "GET", "/api/v1/codes/999999999")).statusCode).toBe(404);
  });

  it("limits refused calls per client address before anything else is written, and audits them sparsely", async () => {
    const ip = freshIp();
    const fake = `cpk_${"A".repeat(43)}`;
    const statuses: number[] = [];
    for (let i = 0; i < 45; i++) {
      statuses.push((await call(fake, "GET", "/api/v1/audit", undefined, { "x-forwarded-for": ip })).statusCode);
    }
    expect(statuses.slice(0, API_KEY_LIMITS.refusalsPerMinutePerIp).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(API_KEY_LIMITS.refusalsPerMinutePerIp).every((s) => s === 429)).toBe(true);
    const refused = await call(fake, "GET", "/api/v1/audit", undefined, { "x-forwarded-for": ip });
    expect(refused.headers["retry-after"]).toEqual(expect.any(String));
    const audits = (await auditRows(t, AUDIT_ACTIONS.apiRefused)).filter((r) => r.ip === ip);
    // the 1st and the 10th of 46 refusals in a row
    expect(audits.map((a) => (a.detail as { refused: number }).refused).sort((a, b) => a - b)).toEqual([1, 10]);
  });
});

describe("POST /api/v1/codes", () => {
  it("issues a code for an active employee, which verifies and whose status and events follow it; the audit names the key", async () => {
    const org = await organisationWithKey();
    const res = await call(org.key, "POST", "/api/v1/codes", { employeeEmail: org.employee.email.toUpperCase() });
    expect(res.statusCode, res.body).toBe(201);
    const code = res.json();
    expect(code).toEqual({
      id: expect.any(Number),
      words: [expect.any(String), expect.any(String), expect.any(String)],
      expiresAt: new Date(t.clock.now().getTime() + IDENTITY_CODE.lifetimeMs).toISOString(),
      language: "en",
      employee: { fullName: "Ada Agent", email: org.employee.email },
    });
    const [issued] = await auditRows(t, AUDIT_ACTIONS.apiIssueCode);
    expect(issued).toMatchObject({ outcome: "success", target: String(code.id), organisationId: org.org.id });
    expect(issued?.detail).toMatchObject({ apiKey: { id: org.keyId }, employeeId: org.employee.id });
    const [generated] = await auditRows(t, AUDIT_ACTIONS.generateCode);
    expect(generated).toMatchObject({ actorId: org.employee.id, target: String(code.id), outcome: "success" });

    expect((await call(org.key, "GET", `/api/v1/codes/${code.id}`)).json()).toMatchObject({ status: "live" });
    // The status stream, as an agent desktop or the organisation's own app would hold it open.
    const stream = await openStream(org.key, code.id);
    await stream.next("live");
    const looked = await verify(t, code.words.join(" "), { origin: `https://${org.domain}` });
    expect(looked.json()).toMatchObject({ verified: true });
    const verified = (await stream.next("verified"))?.data;
    expect(verified).toMatchObject({ id: code.id, status: "verified", site: org.domain });
    await stream.close();
    expect((await call(org.key, "GET", `/api/v1/codes/${code.id}`)).json()).toMatchObject({
      status: "verified",
      site: org.domain,
    });
  });

  it("is 404 for an unknown, inactive or other organisation's employee, and the 4th in a minute is 429 with the specification's message", async () => {
    const a = await organisationWithKey();
    const b = await organisationWithKey();
    const gone = await createUser(t, { organisationId: a.org.id, status: "deactivated", email: `gone@${a.domain}` });
    const pending = await createUser(t, { organisationId: a.org.id, status: "pending", email: `new@${a.domain}` });
    for (const employeeEmail of [gone.email, pending.email, b.employee.email, `nobody@${a.domain}`]) {
      const res = await call(a.key, "POST", "/api/v1/codes", { employeeEmail });
      expect(res.statusCode, employeeEmail).toBe(404);
      expect(res.json()).toEqual({ message: API_KEY_TEXT.employeeNotFound, code: "api.employee_not_found" });
    }
    for (const body of [{}, { employeeEmail: "not an e-mail" }, { employeeEmail: a.employee.email, language: "de" }]) {
      expect((await call(a.key, "POST", "/api/v1/codes", body)).statusCode).toBe(400);
    }
    for (let i = 0; i < IDENTITY_CODE.generatePerWindow; i++) {
      const res = await call(a.key, "POST", "/api/v1/codes", { employeeEmail: a.employee.email, language: "fr" });
      expect(res.statusCode, res.body).toBe(201);
      // The customer's language: three words of the French list.
      expect(res.json().language).toBe("fr");
      for (const word of res.json().words) expect(WORD_LISTS.fr).toContain(word);
    }
    const fourth = await call(a.key, "POST", "/api/v1/codes", { employeeEmail: a.employee.email });
    expect(fourth.statusCode).toBe(429);
    expect(fourth.json().message).toBe(MESSAGES.tooManyCodes);
    expect(Number(fourth.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    // The employee's own limit: their own browser is refused too.
    const own = await signedIn(t, a.employee);
    expect((await own.post("/api/generate-words")).statusCode).toBe(429);
  });
});

describe("organisation A's key and organisation B", () => {
  it("never sees or acts on B's codes, employees, audit or reports (404, or absent)", async () => {
    const a = await organisationWithKey();
    const b = await organisationWithKey();
    const bCode = await storedCodeId(b.employee.id);
    const aCode = await storedCodeId(a.employee.id);
    expect((await call(a.key, "GET", `/api/v1/codes/${aCode}`)).statusCode).toBe(200);
    expect((await call(a.key, "GET", `/api/v1/codes/${bCode}`)).statusCode).toBe(404);
    expect((await call(a.key, "GET", `/api/v1/codes/${bCode}/events`)).statusCode).toBe(404);
    expect((await call(a.key, "POST", "/api/v1/codes", { employeeEmail: b.employee.email })).statusCode).toBe(404);

    await writeAuditEntry(t.database.db, t.clock.now(), {
      action: "test.b-only",
      outcome: "success",
      organisationId: b.org.id,
    });
    await t.database.db.insert(callReports).values([
      { at: t.clock.now(), organisationId: b.org.id, site: b.domain, note: "B's report" },
      { at: t.clock.now(), organisationId: a.org.id, site: a.domain, note: "A's report" },
    ]);
    const audit = (await call(a.key, "GET", "/api/v1/audit?limit=1000")).json();
    expect(audit.items.length).toBeGreaterThan(0);
    const bIds = (
      await t.database.db.select({ id: auditLog.id }).from(auditLog).where(eq(auditLog.organisationId, b.org.id))
    ).map((r) => r.id);
    expect(audit.items.filter((e: { id: number }) => bIds.includes(e.id))).toEqual([]);
    expect(JSON.stringify(audit)).not.toContain("test.b-only");
    const reports = (await call(a.key, "GET", "/api/v1/reports")).json();
    expect(reports.items.map((r: { note: string }) => r.note)).toEqual(["A's report"]);
    expect((await call(b.key, "GET", "/api/v1/reports")).json().items.map((r: { note: string }) => r.note)).toEqual([
      "B's report",
    ]);
  });

  it("refuses a malformed cursor or limit with 400", async () => {
    const a = await organisationWithKey(["audit:read"]);
    for (const q of ["after=-1", "after=abc", "limit=0", "limit=1001", "after=1e3"]) {
      const res = await call(a.key, "GET", `/api/v1/audit?${q}`);
      expect(res.statusCode, q).toBe(400);
      expect(res.json().message).toEqual(expect.any(String));
    }
  });
});

describe("the audit and reports cursors under concurrent writers", () => {
  for (const feed of ["audit", "reports"] as const) {
    it(`GET /api/v1/${feed} returns every event exactly once, in feed order, while 8 writers commit (late commits included)`, async () => {
      const a = await organisationWithKey([feed === "audit" ? "audit:read" : "reports:read"]);
      const b = await createEmployer(t);
      const write = async (n: number, organisationId: number) => {
        if (feed === "audit") {
          await writeAuditEntry(t.database.db, t.clock.now(), {
            action: "test.concurrent",
            outcome: "success",
            organisationId,
            target: String(n),
          });
        } else {
          await t.database.db.insert(callReports).values({ at: t.clock.now(), organisationId, note: `report ${n}` });
        }
      };
      const table = feed === "audit" ? auditLog : callReports;

      // PostgreSQL: one writer keeps its transaction open after taking an id, until the cursor has passed
      // events with larger ids: `id > after` would skip it for good.
      const postgres = t.database.pool !== undefined;
      let releaseLate = () => {};
      const lateGate = new Promise<void>((r) => {
        releaseLate = r;
      });
      let lateId = 0;
      let late: Promise<unknown> = Promise.resolve();
      if (postgres) {
        let inserted = () => {};
        const idTaken = new Promise<void>((r) => {
          inserted = r;
        });
        late = t.database.db.transaction(async (tx) => {
          const [row] =
            feed === "audit"
              ? await tx
                  .insert(auditLog)
                  .values({ at: t.clock.now(), action: "test.late", outcome: "success", organisationId: a.org.id })
                  .returning({ id: auditLog.id })
              : await tx
                  .insert(callReports)
                  .values({ at: t.clock.now(), organisationId: a.org.id, note: "late report" })
                  .returning({ id: callReports.id });
          lateId = row?.id ?? 0;
          inserted();
          await lateGate;
        });
        await idTaken;
      }

      let writing = true;
      const writers = Promise.all(
        Array.from({ length: 8 }, async (_, w) => {
          for (let i = 0; i < 25; i++) await write(w * 100 + i, i % 3 === 0 ? b.org.id : a.org.id);
        }),
      ).then(() => late);
      void writers.finally(() => {
        writing = false;
      });

      const received: number[] = [];
      let after = "0";
      let passedLate = false;
      for (;;) {
        const stillWriting = writing;
        const res = await call(a.key, "GET", `/api/v1/${feed}?after=${after}&limit=7`);
        expect(res.statusCode, res.body).toBe(200);
        const page = res.json() as { items: { id: number }[]; next: string };
        received.push(...page.items.map((i) => i.id));
        expect(BigInt(page.next) >= BigInt(after)).toBe(true);
        after = page.next;
        if (postgres && !passedLate && received.some((id) => id > lateId)) {
          passedLate = true;
          releaseLate();
        }
        // Done once a page that started after every writer had finished came back short.
        if (!stillWriting && page.items.length < 7) break;
      }
      await writers;

      const expected = (
        await t.database.db.select({ id: table.id }).from(table).where(eq(table.organisationId, a.org.id))
      ).map((r) => r.id);
      expect(new Set(received).size).toBe(received.length);
      expect([...received].sort((x, y) => x - y)).toEqual([...expected].sort((x, y) => x - y));
      // 8 writers, 16 of 25 events each for A (and the late one on PostgreSQL)
      expect(received.length).toBeGreaterThanOrEqual(8 * 16);
      // In feed order: positions strictly increase along what was served.
      const positions = new Map(
        (feed === "audit"
          ? // the audit feed's positions are the chain's (migration 0028)
            await t.database.db
              .select({ id: auditChain.eventId, position: auditChain.position })
              .from(auditChain)
              .where(inArray(auditChain.eventId, received))
          : await t.database.db
              .select({ id: table.id, position: callReports.position })
              .from(table)
              .where(inArray(table.id, received))
        ).map((r) => [r.id, r.position ?? 0]),
      );
      const served = received.map((id) => positions.get(id) ?? 0);
      expect(served.every((p, i) => i === 0 || p > (served[i - 1] ?? 0))).toBe(true);
      if (postgres) {
        // The late event came after events with larger ids, and still exactly once.
        expect(received.filter((id) => id === lateId)).toHaveLength(1);
        expect(received.indexOf(lateId)).toBeGreaterThan(received.findIndex((id) => id > lateId));
      }
    });
  }
});

/** A live code of an employee, stored as generation stores it; its id. */
async function storedCodeId(userId: number): Promise<number> {
  await storeCode(t, userId);
  const [row] = await t.database.db
    .select({ id: identityCodes.id })
    .from(identityCodes)
    .where(eq(identityCodes.userId, userId))
    .orderBy(desc(identityCodes.id))
    .limit(1);
  return Number(row?.id);
}

/** Opens a code's event stream over real HTTP with the key and collects its events. */
async function openStream(key: string, id: number) {
  const stream = await openEventStream<CodeStatus>(`${t.url}/api/v1/codes/${id}/events`, {
    authorization: `Bearer ${key}`,
  });
  expect(stream.res.status).toBe(200);
  return stream;
}
