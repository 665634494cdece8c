import { randomBytes } from "node:crypto";
import { type Db, statement } from "@server/db/client";
import { createOrganisation } from "@test/fixtures";
import { buildTestApp, createUser, type SentStatement, sqlLiteral, statementSent, type TestApp } from "@test/helpers";
import { fillPlaceholders, sql } from "drizzle-orm";
import { afterEach, beforeEach, expect, it } from "vitest";
import * as repo from "./repository";

/**
 * The statements of a call's requests (start, check, answer, end, renew, the streams' reads) reach their rows
 * through the primary key, the customer's index or the index of active calls by employee, whatever the
 * statistics say, in the plan a prepared statement keeps (its generic plan). Before, stated plainly as
 * `ended_at is null and ends_at > now`, they implied the predicate of every partial index over active calls,
 * and a plan made while none were active (a young table, or statistics of a quiet hour) read one of those
 * indexes whole, every active call, for each request: 0.2-0.9 ms of the database's CPU each with 3,000 calls
 * active (bench/README.md, call-events). The plans themselves are read, on each engine the suite runs.
 */

/** The dialler's routes' first reads as their keys' statements evaluate them (v1-routes `keyAnd`), alone. */
const EMPLOYEE_JSON = statement("t_plans_employee_json", sql`select ${repo.employeeJsonSql} as value`);
const CALL_JSON = statement("t_plans_call_json", sql`select ${repo.callJsonSql} as value`);

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp();
});
afterEach(async () => {
  await t?.close();
});

/** Partial indexes of active calls and pending checks: a request's statement never reads one whole. */
const PARTIAL = [
  "calls_one_active_per_user_key",
  "calls_due_idx",
  "calls_session_idx",
  "customer_checks_one_pending_key",
];

/** Every node of an EXPLAIN (FORMAT JSON) plan. */
function nodes(plan: Record<string, unknown>): Record<string, unknown>[] {
  const children = (plan.Plans as Record<string, unknown>[] | undefined) ?? [];
  return [plan, ...children.flatMap(nodes)];
}

class Rollback extends Error {}

/** How `sent`'s generic plan reads calls and customer_checks: an index (" (whole)" without a condition) or a seq scan, per node. */
async function reads(sent: SentStatement): Promise<string[]> {
  const label = `t_calls_${randomBytes(4).toString("hex")}`;
  let found: string[] | undefined;
  await t.database.db
    .transaction(async (tx) => {
      const raw = async (text: string) =>
        ((await tx.execute(sql.raw(text))) as unknown as { rows: Record<string, unknown>[] }).rows;
      await raw(`prepare ${label} as ${sent.text}`);
      await raw("set local plan_cache_mode = force_generic_plan");
      const [explained] = await raw(
        `explain (format json) execute ${label}(${sent.params.map(sqlLiteral).join(", ")})`,
      );
      await raw(`deallocate ${label}`);
      const plan = (Object.values(explained ?? {})[0] as { Plan: Record<string, unknown> }[])[0]?.Plan ?? {};
      found = nodes(plan).flatMap((n) => {
        const index = n["Index Name"] as string | undefined;
        if (index?.startsWith("calls_") || index?.startsWith("customer_checks_"))
          return [`${index}${n["Index Cond"] ? "" : " (whole)"}`];
        const relation = n["Relation Name"];
        if (n["Node Type"] === "Seq Scan" && (relation === "calls" || relation === "customer_checks"))
          return [`seq scan of ${relation}`];
        return [];
      });
      throw new Rollback();
    })
    .catch((err) => {
      if (!(err instanceof Rollback)) throw err;
    });
  if (!found) throw new Error("no plan read");
  return found;
}

async function requestStatements() {
  const org = await createOrganisation(t);
  const user = await createUser(t, { organisationId: org.id });
  const now = t.clock.now();
  const by: repo.AuditBy = { actorId: null, actorEmail: null, ip: null, via: "api:plans" };
  const call = { organisation_id: org.id, customer_hash: "customer", user_id: user.id };
  const sent = (f: (db: Db) => Promise<unknown>) => statementSent(f, {});
  const status = repo.customerStatusCalled.calls[0];
  if (!status) throw new Error("no status function");
  return {
    user,
    org,
    byEmployee: {
      activeCallOf: await sent((db) => repo.activeCallOf(db, user.id, now)),
      employeeWithActiveCall: await sent((db) => repo.employeeWithActiveCall(db, user.email, now)),
      employeeJson: await sent((db) => db.run(EMPLOYEE_JSON, repo.employeeValues(user.email, now))),
      // the start: the employee's active call ends, then the new one is inserted
      insertCall: await sent((db) =>
        repo.insertCall(db, {
          id: "call_new",
          organisationId: org.id,
          userId: user.id,
          customerHash: "customer",
          customerSealed: "sealed",
          direction: "outbound",
          startedVia: "api:plans",
          sessionHash: null,
          now,
          by,
        }),
      ),
      endCallOfEmployee: await sent((db) =>
        repo.endCalls(db, { where: repo.callOfEmployeeSql(user.id), reason: "replaced", now, by }),
      ),
    },
    byKey: {
      findCall: await sent((db) => repo.findCall(db, org.id, "call_x")),
      callJson: await sent((db) => db.run(CALL_JSON, { call_id: "call_x", organisation_id: org.id })),
      renewCall: await sent((db) => repo.renewCall(db, { id: "call_x", userId: user.id, now })),
      markDisowned: await sent((db) => repo.markDisowned(db, { id: "call_x", userId: user.id, now })),
      endCallById: await sent((db) =>
        repo.endCalls(db, { where: repo.callByIdSql("call_x"), reason: "ended", now, by }),
      ),
      endCall: await sent((db) => repo.endCall(db, { id: "call_x", reason: "ended", now, by })),
      insertCheck: await sent((db) =>
        repo.insertCheck(db, { id: "chk_x", callId: "call_x", requestedBy: null, now, by }),
      ),
      answerCheck: await sent((db) =>
        repo.answerPendingCheck(db, {
          organisationId: org.id,
          checkId: "chk_x",
          customerHash: null,
          answer: "confirmed",
          via: "api:plans",
          now,
          by,
        }),
      ),
    },
    byCustomer: {
      colleagues: await sent((db) => repo.colleaguesOnCall(db, call, now)),
      expireAndConflict: await sent((db) =>
        repo.expireAndConflict(db, { id: "call_x", organisation_id: org.id, customer_hash: "customer" }, now),
      ),
      customerStatus: {
        text: status.text,
        params: fillPlaceholders([...status.params], {
          organisation_id: org.id,
          customer_hash: "customer",
          now: now.toISOString(),
        }),
      },
    },
  };
}

async function expectKeyedReads() {
  const { byEmployee, byKey, byCustomer } = await requestStatements();
  // by id: through primary keys, no index of active calls or pending checks at all
  for (const [name, sent] of Object.entries(byKey)) {
    const found = await reads(sent);
    expect({ name, partial: found.filter((r) => PARTIAL.some((p) => r.startsWith(p))) }).toEqual({ name, partial: [] });
  }
  // by customer: through the customer's indexes (the one of pending checks included), never one read whole
  for (const [name, sent] of Object.entries(byCustomer)) {
    const found = await reads(sent);
    expect({ name, whole: found.filter((r) => r.endsWith(" (whole)")) }).toEqual({ name, whole: [] });
  }
  for (const [name, sent] of Object.entries(byEmployee)) {
    const found = await reads(sent);
    expect({ name, calls: found.filter((r) => r.startsWith("calls_") || r === "seq scan of calls") }).toEqual({
      name,
      calls: ["calls_one_active_per_user_key"],
    });
  }
}

/**
 * `calls` of them ended and `active` active (one per employee), each with a check (answered, or pending for an
 * active call), then analysed: the statistics the plans are made from.
 */
async function withCalls(p: { ended: number; active: number }) {
  const { user, org } = await requestStatements();
  const at = t.clock.now().toISOString();
  const later = new Date(t.clock.now().getTime() + 60_000).toISOString();
  if (p.active > 0)
    await t.database.db.rows(sql`
      insert into users (email, full_name, password_hash, role, organisation_id, status, created_at)
      select 'agent' || g || '@plans.test', full_name, password_hash, role, organisation_id, status, created_at
      from users, generate_series(1, ${p.active}::int) g where id = ${user.id}::int`);
  await t.database.db.rows(sql`
    insert into calls (id, organisation_id, user_id, customer_hash, customer_sealed, direction, started_via,
      started_at, renewed_at, ends_at, ended_at, end_reason, sequence)
    select 'call_e' || g, ${org.id}::int, ${user.id}::int, 'customer-e' || g, 'sealed', 'outbound', 'api:plans',
      ${at}::timestamptz, ${at}::timestamptz, ${at}::timestamptz, ${at}::timestamptz, 'ended', 2
    from generate_series(1, ${p.ended}::int) g`);
  await t.database.db.rows(sql`
    insert into calls (id, organisation_id, user_id, customer_hash, customer_sealed, direction, started_via,
      started_at, renewed_at, ends_at, sequence)
    select 'call_a' || u.id, ${org.id}::int, u.id, 'customer-a' || u.id, 'sealed', 'outbound', 'api:plans',
      ${at}::timestamptz, ${at}::timestamptz, ${later}::timestamptz, 1
    from users u where u.email like 'agent%@plans.test'`);
  await t.database.db.rows(sql`
    insert into customer_checks (id, call_id, organisation_id, customer_hash, requested_via, status, created_at,
      expires_at, answered_at, answered_via)
    select 'chk_' || c.id, c.id, c.organisation_id, c.customer_hash, 'api:plans',
      case when c.ended_at is null then 'pending' else 'confirmed' end, ${at}::timestamptz, ${later}::timestamptz,
      case when c.ended_at is null then null else ${at}::timestamptz end,
      case when c.ended_at is null then null else 'api:plans' end
    from calls c where c.organisation_id = ${org.id}::int`);
  await t.database.db.rows(sql`analyze calls`);
  await t.database.db.rows(sql`analyze customer_checks`);
}

it("reads a call's rows by key when the statistics say no call is active and no check pending", async () => {
  // a quiet hour: 2,000 calls, every one ended, each with an answered check
  await withCalls({ ended: 2000, active: 0 });
  await expectKeyedReads();
});

it("reads a call's rows by key when many calls are active", async () => {
  await withCalls({ ended: 2000, active: 300 });
  await expectKeyedReads();
});
