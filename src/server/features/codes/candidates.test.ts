import { identityCodes } from "@server/db/schema";
import { drawWords } from "@server/features/codes/words";
import { createOrganisation, storeCode } from "@test/fixtures";
import { buildTestApp, createUser, type TestApp } from "@test/helpers";
import { eq, sql } from "drizzle-orm";
import { afterEach, beforeEach, expect, it } from "vitest";
import { consumeCode, lookUpCode } from "./repository";
import { codeHash } from "./service";

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp();
});
afterEach(async () => {
  await t?.close();
});

const limit = { key: "codes-verify:ip:192.0.2.1", limit: 20, windowMs: 3_600_000 };

/**
 * Typed words may stand for several codes (one per word list): the look-up takes every candidate hash
 * and must pick the live code even when another candidate is a used one.
 */
it("of several candidate hashes, finds and consumes the live code, whichever comes first", async () => {
  const org = await createOrganisation(t);
  const user = await createUser(t, { organisationId: org.id });
  // The used code's hash sorts first in the database's index, so a look-up that took the first
  // candidate it met would find the used one.
  const hashOf = (words: string[]) => codeHash(t.config.appSecret, words);
  const sortsFirst = async (a: string, b: string) =>
    (await t.database.db.rows<{ first: boolean }>(sql`select ${a}::text < ${b}::text as first`))[0]?.first;
  const liveWords = drawWords();
  let usedWords = drawWords();
  while (!(await sortsFirst(hashOf(usedWords), hashOf(liveWords)))) usedWords = drawWords();
  await storeCode(t, user.id, usedWords);
  await storeCode(t, user.id, liveWords);
  const usedHash = hashOf(usedWords);
  const liveHash = hashOf(liveWords);
  await t.database.db.update(identityCodes).set({ usedAt: t.clock.now() }).where(eq(identityCodes.codeHash, usedHash));
  const lookUp = {
    codeHashes: [usedHash, liveHash],
    now: t.clock.now(),
    scope: "any" as const,
    origin: null,
    originHost: null,
    ip: "192.0.2.1",
  };
  for (const codeHashes of [
    [usedHash, liveHash],
    [liveHash, usedHash],
  ]) {
    const first = await lookUpCode(t.database.db, { ...lookUp, codeHashes, limit, networkLimit: null });
    expect(first).toMatchObject({ allowed: true, candidate: true });
  }
  const row = await consumeCode(t.database.db, lookUp);
  expect(row.verified).toBe(true);
  // Used now: neither order finds a consumable code, and no hash is no candidate at all.
  for (const codeHashes of [[usedHash, liveHash], [liveHash, usedHash], []]) {
    const again = await lookUpCode(t.database.db, { ...lookUp, codeHashes, limit, networkLimit: null });
    expect(again).toMatchObject({ allowed: true, candidate: false });
  }
});
