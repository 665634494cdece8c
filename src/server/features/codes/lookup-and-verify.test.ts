import { identityCodes } from "@server/db/schema";
import { drawWords } from "@server/features/codes/words";
import { createOrganisation, storeCode } from "@test/fixtures";
import { buildTestApp, createUser, type TestApp } from "@test/helpers";
import { eq, sql } from "drizzle-orm";
import { afterEach, beforeEach, expect, it } from "vitest";
import { lookUpAndVerify } from "./repository";
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
 * The cases of candidates.test.ts (which runs the look-up and the verification apart) through the product's
 * look-up, which verifies a candidate in the same statement.
 */
it("in one statement, verifies the live code of several candidates, then never again", async () => {
  const org = await createOrganisation(t);
  const user = await createUser(t, { organisationId: org.id });
  const hashOf = (words: string[]) => codeHash(t.config.appSecret, words);
  const liveWords = drawWords();
  const usedWords = drawWords();
  await storeCode(t, user.id, usedWords);
  await storeCode(t, user.id, liveWords);
  await t.database.db
    .update(identityCodes)
    .set({ usedAt: t.clock.now() })
    .where(eq(identityCodes.codeHash, hashOf(usedWords)));
  const lookUp = { now: t.clock.now(), scope: "any" as const, origin: null, originHost: null, ip: "192.0.2.1" };
  const first = await lookUpAndVerify(t.database.db, {
    ...lookUp,
    codeHashes: [hashOf(usedWords), hashOf(liveWords)],
    limit,
    networkLimit: null,
  });
  expect(first).toMatchObject({
    allowed: true,
    candidate: true,
    verification: { verified: true, full_name: user.fullName },
  });
  for (const codeHashes of [[hashOf(liveWords), hashOf(usedWords)], [hashOf(liveWords)], []]) {
    const again = await lookUpAndVerify(t.database.db, { ...lookUp, codeHashes, limit, networkLimit: null });
    // not a candidate: the verification did not run
    expect(again).toMatchObject({ allowed: true, candidate: false, verification: null });
  }
  const [counted] = await t.database.db.rows<{ codes_verified: number }>(
    sql`select codes_verified from users where id = ${user.id}::int`,
  );
  expect(counted?.codes_verified).toBe(1);
});

it("in one statement, verifies the candidate of the site it is typed on, of two organisations' live codes", async () => {
  const a = await createOrganisation(t);
  const b = await createOrganisation(t);
  const alice = await createUser(t, { organisationId: a.id });
  const bob = await createUser(t, { organisationId: b.id });
  const hashOf = (words: string[]) => codeHash(t.config.appSecret, words);
  const aliceWords = drawWords();
  const bobWords = drawWords();
  await storeCode(t, alice.id, aliceWords);
  await storeCode(t, bob.id, bobWords);
  const row = await lookUpAndVerify(t.database.db, {
    now: t.clock.now(),
    scope: [b.domain],
    origin: `https://${b.domain}`,
    originHost: b.domain,
    ip: "192.0.2.1",
    codeHashes: [hashOf(aliceWords), hashOf(bobWords)],
    limit,
    networkLimit: null,
  });
  expect(row).toMatchObject({ candidate: true, verification: { verified: true, company_name: b.companyName } });
  const stillLive = await t.database.db.select().from(identityCodes).where(eq(identityCodes.userId, alice.id));
  expect(stillLive[0]?.usedAt).toBeNull();
});
