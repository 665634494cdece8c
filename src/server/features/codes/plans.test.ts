import { randomBytes } from "node:crypto";
import { createOrganisation } from "@test/fixtures";
import { buildTestApp, createUser, sqlLiteral, statementSent, type TestApp } from "@test/helpers";
import { sql } from "drizzle-orm";
import { afterEach, beforeEach, expect, it } from "vitest";
import { consumeCode, lookUpAndVerify, lookUpCode } from "./repository";
import { codeHash } from "./service";
import { drawWords } from "./words";

/**
 * The look-up's two prepared statements keep the plans they were measured with (bench/README.md,
 * "verify-success", 2026-11-28). Before, with a few thousand codes the look-up's generic plan read the whole
 * codes table for a made-up code (four times the database's CPU per failed look-up), and the verification was
 * planned afresh on every success (0.8 ms of the database's CPU each). Nothing here is timed: the plans
 * themselves are read, on each engine the suite runs.
 */

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp();
});
afterEach(async () => {
  await t?.close();
});

function lookUp(hashes: string[], n: number) {
  return {
    codeHashes: hashes,
    now: t.clock.now(),
    scope: "any" as const,
    origin: null,
    originHost: null,
    ip: `192.0.2.${n}`,
  };
}
const limit = (n: number) => ({ key: `codes-verify:ip:192.0.2.${n}`, limit: 20, windowMs: 3_600_000 });
const networkLimit = (n: number) => ({ key: `codes-verify:net:2001:db8:${n}::/48`, limit: 200, windowMs: 3_600_000 });

const statements = {
  lookup: (hashes: string[], n: number) =>
    statementSent((db) => lookUpCode(db, { ...lookUp(hashes, n), limit: limit(n), networkLimit: null }), {
      allowed: true,
      candidate: false,
    }),
  // an IPv6 client's look-up also counts the hit of its /48
  lookupIpv6: (hashes: string[], n: number) =>
    statementSent((db) => lookUpCode(db, { ...lookUp(hashes, n), limit: limit(n), networkLimit: networkLimit(n) }), {
      allowed: true,
      candidate: false,
    }),
  verify: (hashes: string[], n: number) =>
    statementSent((db) => consumeCode(db, lookUp(hashes, n)), { verified: false, id: null, queued: 0 }),
  // the product's look-up: the first with the second called as a function for a candidate
  lookupAndVerify: (hashes: string[], n: number) =>
    statementSent((db) => lookUpAndVerify(db, { ...lookUp(hashes, n), limit: limit(n), networkLimit: null }), {
      allowed: true,
      candidate: false,
      verification: null,
    }),
};

/** The verification's function, which `lookUpAndVerify`'s text calls, made by a look-up of its own. */
async function verificationMade() {
  await lookUpAndVerify(t.database.db, { ...lookUp([], 250), limit: limit(250), networkLimit: null });
}

/** Every node of an EXPLAIN (FORMAT JSON) plan. */
function nodes(plan: Record<string, unknown>): Record<string, unknown>[] {
  const children = (plan.Plans as Record<string, unknown>[] | undefined) ?? [];
  return [plan, ...children.flatMap(nodes)];
}

/**
 * Prepares `name` on one connection (a transaction holds it), runs `uses` executions of it with fresh hashes,
 * then gives its generic plan and how often it was planned of each kind. Rolled back: nothing is written. A
 * prepared statement outlives a rollback, and behind PgBouncer the server connection outlives this test's
 * client: a name of its own, deallocated before the rollback.
 */
async function prepared(name: keyof typeof statements, hashes: () => string[], uses: number) {
  const first = await statements[name](hashes(), 1);
  const label = `t_${name.toLowerCase()}_${randomBytes(4).toString("hex")}`;
  let result: { generic: number; custom: number; seqScans: string[] } | undefined;
  await t.database.db
    .transaction(async (tx) => {
      const raw = async (text: string) =>
        ((await tx.execute(sql.raw(text))) as unknown as { rows: Record<string, unknown>[] }).rows;
      await raw(`prepare ${label} as ${first.text}`);
      for (let i = 0; i < uses; i++) {
        const { params } = await statements[name](hashes(), i + 2);
        await raw(`execute ${label}(${params.map(sqlLiteral).join(", ")})`);
      }
      const [counts] = await raw(
        `select generic_plans::int as generic, custom_plans::int as custom from pg_prepared_statements where name = '${label}'`,
      );
      await raw("set local plan_cache_mode = force_generic_plan");
      const { params } = await statements[name](hashes(), uses + 2);
      const [explained] = await raw(`explain (format json) execute ${label}(${params.map(sqlLiteral).join(", ")})`);
      await raw(`deallocate ${label}`);
      const plan = (Object.values(explained ?? {})[0] as { Plan: Record<string, unknown> }[])[0]?.Plan ?? {};
      result = {
        generic: Number(counts?.generic),
        custom: Number(counts?.custom),
        seqScans: nodes(plan)
          .filter((n) => n["Node Type"] === "Seq Scan")
          .map((n) => String(n["Relation Name"])),
      };
      throw new Rollback();
    })
    .catch((err) => {
      if (!(err instanceof Rollback)) throw err;
    });
  if (!result) throw new Error("no plan read");
  return result;
}
class Rollback extends Error {}

const randomHash = () => codeHash("plans-test", drawWords());

/** `employees` employees with three live codes each (the successful look-ups' benchmark runs with 1,000). */
async function withCodes(employees: number) {
  const org = await createOrganisation(t);
  const user = await createUser(t, { organisationId: org.id });
  await t.database.db.rows(sql`
    insert into users (email, full_name, password_hash, role, organisation_id, status, created_at)
    select 'agent' || g || '@plans.test', full_name, password_hash, role, organisation_id, status, created_at
    from users, generate_series(1, ${employees}::int) g where id = ${user.id}::int`);
  await t.database.db.rows(sql`
    insert into identity_codes (user_id, code_hash, created_at, expires_at)
    select u.id, md5(u.id || '/' || g), ${t.clock.now().toISOString()}::timestamptz,
      ${new Date(t.clock.now().getTime() + 60_000).toISOString()}::timestamptz
    from users u, generate_series(1, 3) g where u.organisation_id = ${org.id}::int`);
}

it("reaches codes by their hash, never by reading the codes table", async () => {
  // a table of a few hundred codes: the old plan read it whole, expecting to meet one of ten matches early
  await withCodes(300);
  await verificationMade();
  for (const name of ["lookup", "lookupIpv6", "verify", "lookupAndVerify"] as const) {
    // six hashes: a typed code may stand for one code per word list
    const { seqScans } = await prepared(name, () => Array.from({ length: 6 }, randomHash), 0);
    expect({ name, seqScans: seqScans.filter((r) => r === "identity_codes") }).toEqual({ name, seqScans: [] });
  }
});

it("keeps one generic plan for each statement instead of planning it again on every look-up", async () => {
  await withCodes(1000);
  await verificationMade();
  for (const name of ["lookup", "lookupIpv6", "verify", "lookupAndVerify"] as const) {
    const { generic, custom } = await prepared(name, () => [randomHash()], 12);
    // PostgreSQL tries five custom plans, then keeps the generic one when it costs no more than they did
    expect({ name, custom, generic }).toEqual({ name, custom: 5, generic: 7 });
  }
});

it("runs the verification of a look-up's statement for a candidate only", async () => {
  // What a failed look-up pays for the verification in its statement is a call that does not run: the
  // function's plan is set up only when it is called (bench/README.md, verify-success).
  const org = await createOrganisation(t);
  const user = await createUser(t, { organisationId: org.id });
  const words = drawWords();
  await t.database.db.rows(sql`
    insert into identity_codes (user_id, code_hash, created_at, expires_at)
    values (${user.id}::int, ${codeHash(t.config.appSecret, words)}::text, ${t.clock.now().toISOString()}::timestamptz,
      ${new Date(t.clock.now().getTime() + 60_000).toISOString()}::timestamptz)`);
  await verificationMade();
  const callsOf = async (hashes: string[], n: number) => {
    const { text, params } = await statements.lookupAndVerify(hashes, n);
    let loops: number[] = [];
    await t.database.db
      .transaction(async (tx) => {
        const label = `t_calls_${randomBytes(4).toString("hex")}`;
        const raw = async (q: string) =>
          ((await tx.execute(sql.raw(q))) as unknown as { rows: Record<string, unknown>[] }).rows;
        await raw(`prepare ${label} as ${text}`);
        const [explained] = await raw(
          `explain (analyze, format json) execute ${label}(${params.map(sqlLiteral).join(", ")})`,
        );
        await raw(`deallocate ${label}`);
        const plan = (Object.values(explained ?? {})[0] as { Plan: Record<string, unknown> }[])[0]?.Plan ?? {};
        loops = nodes(plan)
          .filter((n) => String(n["Function Name"] ?? "").includes("codes_verify"))
          .map((n) => Number(n["Actual Loops"]));
        throw new Rollback();
      })
      .catch((err) => {
        if (!(err instanceof Rollback)) throw err;
      });
    return loops;
  };
  // one call in the plan; a made-up code never runs it, the live one does
  expect(await callsOf([randomHash()], 3)).toEqual([0]);
  expect(await callsOf([codeHash(t.config.appSecret, words)], 4)).toEqual([1]);
});
