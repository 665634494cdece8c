import { randomBytes } from "node:crypto";
import { buildTestApp, planCounts, type TestApp } from "@test/helpers";
import { afterEach, beforeEach, expect, it } from "vitest";
import { LOOK_UP_CALLS, lookUpAndVerify } from "./repository";

/**
 * The statements a look-up calls as functions (the judgement, the verification, an IPv6 client's /48 hit)
 * are planned as PL/pgSQL plans them, once per server session, by the same rule as a prepared statement:
 * five custom plans, then the generic one unless it looks dearer. The judgement, called on its own, was
 * planned afresh on every successful look-up (a scope of "any" let each custom plan drop the site check), and
 * a success cost half as much again of the database's CPU (bench/README.md, verify, 2026-11-29). Read here
 * as prepared statements of the same text, on each engine the suite runs; rolled back, nothing is written.
 */

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp();
});
afterEach(async () => {
  await t?.close();
});

/** A look-up's values, by placeholder name: a made-up code of a widget on any site, an IPv6 client's /48. */
function values(n: number): Record<string, unknown> {
  const now = t.clock.now();
  const at = (ms: number) => new Date(now.getTime() + ms).toISOString();
  return {
    hashes: randomBytes(32).toString("base64url"),
    now: now.toISOString(),
    anySite: true,
    hosts: "",
    allowed: true,
    originHost: null,
    code_id: 0,
    network_key: `codes-verify:net:2001:db8:${n}::/48`,
    network_limit: 200,
    network_now: now.toISOString(),
    network_cutoff: at(-3_600_000),
    network_until: at(3_600_000),
    network_firstAllowed: true,
    network_firstRefused: 0,
  };
}

it("keeps one generic plan for each statement a look-up calls", async () => {
  // a look-up makes the functions it calls
  await lookUpAndVerify(t.database.db, {
    codeHashes: [],
    now: t.clock.now(),
    scope: "any",
    origin: null,
    originHost: null,
    ip: "192.0.2.1",
    limit: { key: "codes-verify:ip:192.0.2.1", limit: 20, windowMs: 3_600_000 },
    networkLimit: null,
  });
  expect(LOOK_UP_CALLS.length).toBeGreaterThanOrEqual(3);
  for (const called of LOOK_UP_CALLS) {
    // PostgreSQL tries five custom plans, then keeps the generic one when it costs no more than they did
    const counts = await planCounts(t.database.db, called, values);
    expect({ name: called.name, ...counts }).toEqual({ name: called.name, generic: 7, custom: 5 });
  }
});
