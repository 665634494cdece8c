import { buildTestApp, planCounts, type TestApp } from "@test/helpers";
import { afterEach, beforeEach, expect, it } from "vitest";
import { customerStatusCalled } from "./repository";

/**
 * The customer's status, which call-status reads through a call only a customer with a call kept makes, is
 * planned as PL/pgSQL plans it, once per server session, by the prepared statements' rule: were its custom
 * plans always cheaper than its generic one, every such read would be planned afresh (bench/README.md,
 * calls, 2026-11-29). Read here as a prepared statement of the same text, on each engine the suite runs.
 */

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp();
});
afterEach(async () => {
  await t?.close();
});

it("keeps one generic plan for the customer's status that call-status calls", async () => {
  expect(customerStatusCalled.calls.length).toBe(1);
  for (const called of customerStatusCalled.calls) {
    const counts = await planCounts(t.database.db, called, (i) => ({
      organisation_id: (i % 3) + 1,
      customer_hash: `customer-${i}`,
      now: t.clock.now().toISOString(),
    }));
    expect({ name: called.name, ...counts }).toEqual({ name: called.name, generic: 7, custom: 5 });
  }
});
