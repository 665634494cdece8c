import { auditChain, callReports } from "@server/db/schema";
import { writeAuditEntry } from "@server/lib/audit";
import type { ApiKeyScope } from "@shared/api-keys";
import { createEmployer, TRUST_PROXY_ENV } from "@test/fixtures";
import { buildTestApp, signIn, type TestApp } from "@test/helpers";
import { eq, max } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp({ env: TRUST_PROXY_ENV });
});
afterEach(async () => {
  await t?.close();
});

/** An organisation with a key holding `scope`. */
async function organisationWithKey(scope: ApiKeyScope) {
  const employer = await createEmployer(t);
  const browser = await signIn(t, employer.user.email);
  const res = await browser.post("/api/employer/api-keys", { name: "SIEM", scopes: [scope] });
  expect(res.statusCode, res.body).toBe(201);
  return { ...employer, key: res.json().key as string };
}

const FEEDS = {
  audit: {
    scope: "audit:read",
    table: auditChain, // positions are the chain's (migration 0028)
    write: (organisationId: number) =>
      writeAuditEntry(t.database.db, t.clock.now(), { action: "test.cursor", outcome: "success", organisationId }),
  },
  reports: {
    scope: "reports:read",
    table: callReports,
    write: (organisationId: number) =>
      t.database.db.insert(callReports).values({ at: t.clock.now(), organisationId, note: "a call" }),
  },
} as const;

describe("the /api/v1 cursors tell an organisation nothing of others (issue 32, L6)", () => {
  for (const [feed, { scope, table, write }] of Object.entries(FEEDS)) {
    it(`a short /api/v1/${feed} page's next is its own last event's position, or the cursor sent`, async () => {
      const a = await organisationWithKey(scope);
      const b = await createEmployer(t);
      const page = async (after: string) => {
        const res = await t.app.inject({
          method: "GET",
          url: `/api/v1/${feed}?after=${after}&limit=100`,
          headers: { authorization: `Bearer ${a.key}`, "x-forwarded-for": "192.0.2.10" },
        });
        expect(res.statusCode, res.body).toBe(200);
        return res.json() as { items: { id: number }[]; next: string };
      };
      const ownNewest = async () =>
        String(
          (
            await t.database.db
              .select({ p: max(table.position) })
              .from(table)
              .where(eq(table.organisationId, a.org.id))
          )[0]?.p,
        );

      await write(a.org.id);
      await write(a.org.id);
      const first = await page("0");
      expect(first.items.length).toBeGreaterThanOrEqual(2);
      expect(first.next).toBe(await ownNewest());

      // Other organisations' events move nothing: an empty page answers the cursor it was sent.
      for (let i = 0; i < 30; i++) await write(b.org.id);
      const quiet = await page(first.next);
      expect(quiet).toEqual({ items: [], next: first.next });

      // And the next own event is served exactly once, then the cursor stays on it.
      await write(a.org.id);
      const next = await page(quiet.next);
      expect(next.items).toHaveLength(1);
      expect(next.next).toBe(await ownNewest());
      expect(await page(next.next)).toEqual({ items: [], next: next.next });
    });
  }
});
