import { auditLog } from "@server/db/schema";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { IDENTITY_CODE } from "@shared/constants";
import { generate, signedInEmployee, verify } from "@test/fixtures";
import { buildTestApp, type TestApp } from "@test/helpers";
import { and, eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { GUESSING_WINDOW_MS, watchCodeGuessing } from "./guessing";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const auditRows = (app: TestApp, action: string, outcome?: string) =>
  app.database.db
    .select()
    .from(auditLog)
    .where(outcome ? and(eq(auditLog.action, action), eq(auditLog.outcome, outcome)) : eq(auditLog.action, action))
    .orderBy(auditLog.id);

describe("code guessing from one IPv6 /48 (issue 18 N12)", () => {
  it("holds a /48 to its own budget across processes; a flooding /64 does not use it up; other networks go on", async () => {
    const app = await buildTestApp();
    t = app;
    const second = await buildTestApp({ database: app.database, clock: app.clock });
    try {
      const perClient = IDENTITY_CODE.lookupsPerWindow;
      const perNetwork = IDENTITY_CODE.lookupsPerNetworkPerWindow;
      // One /64 spends its budget, then keeps trying: its refusals are not counted against the /48.
      for (let i = 0; i < perClient; i++) {
        expect((await verify(app, "zoo zoo zoo", { ip: `2001:db8:5:0::${i + 1}` })).statusCode).toBe(200);
      }
      for (let i = 0; i < 30; i++) {
        expect((await verify(app, "zoo zoo zoo", { ip: "2001:db8:5:0::ff" })).statusCode).toBe(429);
      }
      // Other /64s of the same /48, served by two processes, use the rest of the /48's budget.
      const others = perNetwork / perClient - 1;
      for (let n = 1; n <= others; n++) {
        for (let i = 0; i < perClient; i++) {
          const via = i % 2 ? second : app;
          const res = await verify(via, "zoo zoo zoo", { ip: `2001:db8:5:${n.toString(16)}::${i + 1}` });
          expect(res.statusCode).toBe(200);
        }
      }
      // The /48 is spent: a fresh /64 in it is refused, with Retry-After, by either process...
      const refused = await verify(second, "zoo zoo zoo", { ip: "2001:db8:5:ffff::1" });
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
      expect((await verify(app, "zoo zoo zoo", { ip: "2001:db8:5:fffe::1" })).statusCode).toBe(429);
      // ...even with a real code, which stays unused.
      const { browser } = await signedInEmployee(app);
      const { words } = await generate(browser);
      expect((await verify(app, words.join(" "), { ip: "2001:db8:5:fffd::1" })).statusCode).toBe(429);
      // Another /48 and IPv4 clients are not touched, and the code still verifies there.
      expect((await verify(app, words.join(" "), { ip: "2001:db8:6::1" })).json()).toMatchObject({ verified: true });
      expect((await verify(app, "zoo zoo zoo", { ip: "198.51.100.20" })).statusCode).toBe(200);
      // Refusals are audited sparsely, with their reason.
      const denied = await auditRows(app, AUDIT_ACTIONS.verifyCode, "denied");
      expect(denied.length).toBeLessThanOrEqual(4);
      expect(denied.every((d) => d.detail?.reason === "rate-limited")).toBe(true);

      // The window rolls: an hour later the /48 may look up again.
      app.clock.advance(IDENTITY_CODE.lookupWindowMs + 1000);
      expect((await verify(app, "zoo zoo zoo", { ip: "2001:db8:5:ffff::1" })).statusCode).toBe(200);
    } finally {
      await second.close();
    }
  }, 120_000);
});

describe("the global failure budget of code guessing (issue 18 N12)", () => {
  it("logs and audits one alert a minute above the budget, and refuses nobody", async () => {
    const lines: string[] = [];
    const app = await buildTestApp({ env: { CODE_GUESS_ALERT_PER_MINUTE: "5" }, log: (line) => lines.push(line) });
    t = app;
    const alerts = () => auditRows(app, AUDIT_ACTIONS.codeGuessingAlert);
    const logged = () => lines.map((l) => JSON.parse(l)).filter((l) => l.alert === "code-guessing");

    // Five failures in a minute, from five addresses: within the budget.
    for (let i = 0; i < 5; i++) {
      expect((await verify(app, "zoo zoo zoo", { ip: `203.0.113.${i + 1}` })).statusCode).toBe(200);
    }
    await watchCodeGuessing(app.app.deps);
    expect(await alerts()).toEqual([]);

    // A sixth, from an IPv6 client: above it.
    expect((await verify(app, "zoo zoo zoo", { ip: "2001:db8:9::1" })).statusCode).toBe(200);
    await watchCodeGuessing(app.app.deps);
    await app.app.deps.background.idle();
    const [alert, ...more] = await alerts();
    expect(more).toEqual([]);
    expect(alert?.detail).toMatchObject({ failures: 6, clients: 6, budget: 5 });
    expect(logged()).toEqual([expect.objectContaining({ level: 50, failures: 6, clients: 6, budget: 5 })]);

    // Nobody is refused while it holds: more guesses still answer, and a real code still verifies.
    for (let i = 0; i < 5; i++) {
      expect((await verify(app, "zoo zoo zoo", { ip: `198.51.100.${i + 1}` })).statusCode).toBe(200);
    }
    const { browser } = await signedInEmployee(app);
    const { words } = await generate(browser);
    expect((await verify(app, words.join(" "), { ip: "192.0.2.50" })).json()).toMatchObject({ verified: true });

    // One alert a minute, however many processes or runs see it.
    await watchCodeGuessing(app.app.deps);
    expect(await alerts()).toHaveLength(1);
    // A minute later the old failures have left the window: no new alert until there are enough again.
    app.clock.advance(GUESSING_WINDOW_MS + 1000);
    await watchCodeGuessing(app.app.deps);
    expect(await alerts()).toHaveLength(1);
    for (let i = 0; i < 6; i++) await verify(app, "zoo zoo zoo", { ip: `192.0.2.${100 + i}` });
    await watchCodeGuessing(app.app.deps);
    expect(await alerts()).toHaveLength(2);
  }, 60_000);
});
