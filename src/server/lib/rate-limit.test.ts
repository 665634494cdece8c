import { freshDatabase } from "@test/helpers";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../db/client";
import { RateLimiter } from "./rate-limit";

let database: Database;
beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(async () => {
  await database?.close();
});

describe("rolling-window rate limiter in the database", () => {
  it("lets `limit` hits through per rolling window and says when the next one may come", async () => {
    const limits = new RateLimiter(database.db);
    const t0 = new Date("2026-01-01T00:00:00Z").getTime();
    const at = (s: number) => new Date(t0 + s * 1000);
    expect((await limits.hit("k1", 3, 60_000, at(0))).allowed).toBe(true);
    expect((await limits.hit("k1", 3, 60_000, at(20))).allowed).toBe(true);
    expect((await limits.hit("k1", 3, 60_000, at(40))).allowed).toBe(true);
    const fourth = await limits.hit("k1", 3, 60_000, at(50));
    expect(fourth).toEqual({ allowed: false, retryAfterSeconds: 10, refused: 1 });
    // refused hits are not counted: the first hit leaves the window at 60 s
    expect((await limits.hit("k1", 3, 60_000, at(61))).allowed).toBe(true);
    expect((await limits.hit("k1", 3, 60_000, at(62))).allowed).toBe(false);
    expect((await limits.hit("k1", 3, 60_000, at(81))).allowed).toBe(true);
    expect((await limits.hit("other", 3, 60_000, at(81))).allowed).toBe(true);
  });

  it("keeps a key's newest `limit` hits in time order, so a busy key's row stays small and a late clock's hit counts in its place", async () => {
    const limits = new RateLimiter(database.db);
    const t0 = new Date("2026-01-01T00:00:00Z").getTime();
    const at = (s: number) => new Date(t0 + s * 1000);
    for (let s = 0; s < 200; s += 2) expect((await limits.hit("k4", 3, 5_000, at(s))).allowed).toBe(true);
    const [row] = await database.db.rows<{ hits: Date[] }>(sql`select hits from rate_limits where key = 'k4'`);
    expect(row?.hits.map((h) => (h.getTime() - t0) / 1000)).toEqual([194, 196, 198]);

    // a process whose clock is 5 s behind another's: its hit goes before the other's, and the window follows
    expect((await limits.hit("k5", 3, 60_000, at(10))).allowed).toBe(true);
    expect((await limits.hit("k5", 3, 60_000, at(5))).allowed).toBe(true);
    expect((await limits.hit("k5", 3, 60_000, at(20))).allowed).toBe(true);
    expect(await limits.hit("k5", 3, 60_000, at(30))).toEqual({ allowed: false, retryAfterSeconds: 35, refused: 1 });
    expect((await limits.hit("k5", 3, 60_000, at(65))).allowed).toBe(true);
    expect((await limits.hit("k5", 3, 60_000, at(66))).allowed).toBe(false);
  });

  it("two limits in one statement count the second only when the first let the hit through", async () => {
    const limits = new RateLimiter(database.db);
    const t0 = new Date("2026-01-01T00:00:00Z").getTime();
    const at = (s: number) => new Date(t0 + s * 1000);
    const employee = { key: "both:employee", limit: 2, windowMs: 3_600_000 };
    const organisation = { key: "both:organisation", limit: 3, windowMs: 60_000 };
    const hitsOf = async (key: string) =>
      (await database.db.rows<{ hits: Date[] }>(sql`select hits from rate_limits where key = ${key}`))[0]?.hits
        .length ?? 0;
    const pass = { allowed: true, retryAfterSeconds: 0, refused: 0 };
    expect(await limits.hitBoth(employee, organisation, at(0))).toEqual({ first: pass, second: pass });
    expect(await limits.hitBoth(employee, organisation, at(10))).toEqual({ first: pass, second: pass });
    // the employee's third in the hour is refused, and the organisation's count does not move
    expect(await limits.hitBoth(employee, organisation, at(20))).toEqual({
      first: { allowed: false, retryAfterSeconds: 3580, refused: 1 },
      second: null,
    });
    expect([await hitsOf(employee.key), await hitsOf(organisation.key)]).toEqual([2, 2]);
    // another employee of the same organisation: their first hit counts, the organisation's third too, then its fourth is refused
    const other = { ...employee, key: "both:other" };
    expect(await limits.hitBoth(other, organisation, at(30))).toEqual({ first: pass, second: pass });
    expect(await limits.hitBoth(other, organisation, at(40))).toEqual({
      first: pass,
      second: { allowed: false, retryAfterSeconds: 20, refused: 1 },
    });
    expect([await hitsOf(other.key), await hitsOf(organisation.key)]).toEqual([2, 3]);
  });

  it("a limit of 0 lets nothing through and counts the refusals in a row", async () => {
    const limits = new RateLimiter(database.db);
    const now = new Date("2026-01-01T00:00:00Z");
    const seen = [];
    for (let i = 0; i < 4; i++) seen.push(await limits.hit("k6", 0, 3_600_000, new Date(now.getTime() + i * 1000)));
    expect(seen.map((r) => [r.allowed, r.refused])).toEqual([
      [false, 1],
      [false, 2],
      [false, 3],
      [false, 4],
    ]);
  });

  it("peeks without counting, and release takes one hit back", async () => {
    const limits = new RateLimiter(database.db);
    const now = new Date("2026-01-01T00:00:00Z");
    expect((await limits.peek("k2", 1, 60_000, now)).allowed).toBe(true);
    expect((await limits.peek("k2", 1, 60_000, now)).allowed).toBe(true);
    await limits.hit("k2", 1, 60_000, now);
    expect((await limits.peek("k2", 1, 60_000, now)).allowed).toBe(false);
    await limits.release("k2", now);
    expect((await limits.peek("k2", 1, 60_000, now)).allowed).toBe(true);
  });

  it("holds under concurrent hits: exactly `limit` of 40 parallel hits get through", async () => {
    const limits = new RateLimiter(database.db);
    const now = new Date("2026-01-01T00:00:00Z");
    const results = await Promise.all(Array.from({ length: 40 }, () => limits.hit("k3", 20, 3_600_000, now)));
    expect(results.filter((r) => r.allowed)).toHaveLength(20);
  });
});
