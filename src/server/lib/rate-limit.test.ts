import { freshDatabase } from "@test/helpers";
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
