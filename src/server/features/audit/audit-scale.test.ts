import { auditLog } from "@server/db/schema";
import { freshDatabase } from "@test/helpers";
import { desc, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countEvents, EXACT_COUNT_LIMIT, listEvents } from "./repository";

describe("audit log reads beyond the exact-count limit", () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  const ROWS = EXACT_COUNT_LIMIT + 2_000;

  beforeAll(async () => {
    database = await freshDatabase();
    await database.db.execute(sql`
      insert into audit_log (at, actor_email, organisation_id, action, outcome)
      select timestamptz '2030-01-01' + g * interval '1 minute', 'user' || (g % 10) || '@example.com',
             case when g % 2 = 0 then 7 else 8 end, 'test.bulk', 'success'
      from generate_series(1, ${ROWS}) g`);
    await database.db.execute(sql`analyze audit_log`);
  });
  afterAll(() => database.close());

  it("counts exactly up to the limit and estimates above it", async () => {
    expect(await countEvents(database.db, { actorEmail: "user3@example.com" })).toBe(ROWS / 10);
    const estimate = await countEvents(database.db, {});
    expect(estimate).toBeGreaterThan(EXACT_COUNT_LIMIT);
    expect(Math.abs(estimate - ROWS) / ROWS).toBeLessThan(0.2);
  });

  it("pages at any depth in the viewer's order", async () => {
    const all = await database.db
      .select({ id: auditLog.id })
      .from(auditLog)
      .orderBy(desc(auditLog.at), desc(auditLog.id));
    const deep = await listEvents(database.db, {}, 50, 11_950);
    expect(deep.map((e) => e.id)).toEqual(all.slice(11_950, 12_000).map((r) => r.id));
    const org = await listEvents(database.db, { organisationId: 7 }, 50, 5_000);
    expect(org).toHaveLength(50);
    expect(org.every((e) => e.organisationId === 7)).toBe(true);
    const ats = org.map((e) => Date.parse(e.at));
    expect([...ats].sort((a, b) => b - a)).toEqual(ats);
  });
});
