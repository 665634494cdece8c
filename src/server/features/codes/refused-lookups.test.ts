import { auditLog } from "@server/db/schema";
import { verify } from "@test/fixtures";
import { buildTestApp, type TestApp } from "@test/helpers";
import { eq, sql } from "drizzle-orm";
import { afterEach, beforeEach, expect, it } from "vitest";

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp();
});
afterEach(async () => {
  await t?.close();
});

const auditSize = async () => {
  const [row] = await t.database.db
    .select({
      rows: sql<number>`count(*)::int`,
      bytes: sql<number>`coalesce(sum(pg_column_size(${auditLog}.*)), 0)::int`,
    })
    .from(auditLog);
  return row ?? { rows: 0, bytes: 0 };
};

it("10,000 refused look-ups from one IP leave the audit table within a few rows; stored origins are capped", async () => {
  const ip = "198.51.100.77";
  const origin = `https://${"a".repeat(300)}.example`;
  for (let i = 0; i < 20; i++) expect((await verify(t, "zoo zoo zoo", { ip, origin })).statusCode).toBe(200);
  const before = await auditSize();
  expect(before.rows).toBe(20);
  for (let i = 0; i < 10_000; i++) {
    const res = await verify(t, "zoo zoo zoo", { ip, origin });
    if (res.statusCode !== 429) throw new Error(`look-up ${i} answered ${res.statusCode}`);
  }
  const after = await auditSize();
  // refusals number 1, 10, 100, 1000 and 10000 are audited, with their count
  expect(after.rows - before.rows).toBeLessThanOrEqual(5);
  const refused = await t.database.db
    .select()
    .from(auditLog)
    .where(eq(auditLog.outcome, "denied"))
    .orderBy(auditLog.id);
  expect(refused.map((r) => r.detail?.refused)).toEqual([1, 10, 100, 1000, 10000]);
  for (const row of await t.database.db.select().from(auditLog)) {
    expect(String(row.detail?.origin).length).toBeLessThanOrEqual(255);
  }
  console.log(
    `audit growth for 10,000 refused look-ups: ${after.rows - before.rows} rows, ${after.bytes - before.bytes} bytes`,
  );
}, 300_000);
