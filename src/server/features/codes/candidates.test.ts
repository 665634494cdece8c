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

/**
 * Two live codes of two organisations may both be candidates of one typed code (words that two lists
 * spell differently after folding). On one organisation's site, its own code verifies, whichever of the
 * two the database meets first: the other organisation's code must not make it a "wrong site" guess.
 */
it("of two live candidate codes of two organisations, verifies the one of the site it is typed on", async () => {
  const a = await createOrganisation(t);
  const b = await createOrganisation(t);
  const alice = await createUser(t, { organisationId: a.id });
  const bob = await createUser(t, { organisationId: b.id });
  const hashOf = (words: string[]) => codeHash(t.config.appSecret, words);
  const aliceWords = drawWords();
  const bobWords = drawWords();
  await storeCode(t, alice.id, aliceWords);
  await storeCode(t, bob.id, bobWords);
  const onB = {
    now: t.clock.now(),
    scope: [b.domain],
    origin: `https://${b.domain}`,
    originHost: b.domain,
    ip: "192.0.2.1",
  };
  for (const codeHashes of [
    [hashOf(aliceWords), hashOf(bobWords)],
    [hashOf(bobWords), hashOf(aliceWords)],
  ]) {
    const first = await lookUpCode(t.database.db, { ...onB, codeHashes, limit, networkLimit: null });
    expect(first).toMatchObject({ allowed: true, candidate: true });
  }
  const row = await consumeCode(t.database.db, { ...onB, codeHashes: [hashOf(aliceWords), hashOf(bobWords)] });
  expect(row).toMatchObject({ verified: true, company_name: b.companyName });
  const stillLive = await t.database.db.select().from(identityCodes).where(eq(identityCodes.userId, alice.id));
  expect(stillLive[0]?.usedAt).toBeNull();
});
