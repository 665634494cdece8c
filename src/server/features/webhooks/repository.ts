import type { Db, Executor } from "@server/db/client";
import { webhookDeliveries, webhookEndpoints } from "@server/db/schema";
import { organisationActiveSql } from "@server/features/organisations";
import { desc, eq, sql } from "drizzle-orm";
import { queueDeliveries } from "./outbox";

export async function findEndpoint(db: Db, organisationId: number) {
  const [row] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.organisationId, organisationId));
  return row ?? null;
}

export async function saveEndpoint(
  db: Db,
  p: { organisationId: number; url: string; events: string[]; secretSealed: string; secretHint: string; now: Date },
) {
  const values = {
    url: p.url,
    events: p.events,
    secretSealed: p.secretSealed,
    secretHint: p.secretHint,
    createdAt: p.now,
    // Saving the endpoint (a new URL, or the same one fixed) closes its circuit breaker.
    consecutiveFailures: 0,
    pausedUntil: null,
  };
  await db
    .insert(webhookEndpoints)
    .values({ organisationId: p.organisationId, ...values })
    .onConflictDoUpdate({ target: webhookEndpoints.organisationId, set: values });
}

/** Removes the endpoint; its pending deliveries are dropped (marked failed). Whether there was one. */
export async function deleteEndpoint(db: Db, organisationId: number, now: Date): Promise<boolean> {
  return db.transaction(async (tx) => {
    const gone = await tx
      .delete(webhookEndpoints)
      .where(eq(webhookEndpoints.organisationId, organisationId))
      .returning({ id: webhookEndpoints.organisationId });
    await tx
      .update(webhookDeliveries)
      .set({ status: "failed", lastError: "the endpoint was removed", lastAttemptAt: now, lockedUntil: null })
      .where(sql`${webhookDeliveries.organisationId} = ${organisationId} and ${webhookDeliveries.status} = 'pending'`);
    return gone.length > 0;
  });
}

export async function recentDeliveries(db: Db, organisationId: number, limit = 20) {
  return db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.organisationId, organisationId))
    .orderBy(desc(webhookDeliveries.id))
    .limit(limit);
}

/** Queues a `webhook.test` event for the organisation's endpoint: how many deliveries (0 without an endpoint). */
export async function queueTestEvent(db: Db, organisationId: number, now: Date): Promise<number> {
  const at = now.toISOString();
  const [row] = await db.rows<{ queued: number }>(sql`
    with org as (select ${organisationId}::int as id),
    queued as (${queueDeliveries({
      type: "webhook.test",
      now: at,
      from: sql`org`,
      organisationId: sql`org.id`,
      data: sql`jsonb_build_object('message', 'A test event from CallProof.')`,
    })})
    select (select count(*) from queued)::int as queued`);
  return row?.queued ?? 0;
}

export type DueDelivery = {
  id: number;
  organisation_id: number;
  event_type: string;
  message_id: string;
  payload: string;
  attempts: number;
  created_at: Date;
  url: string | null;
  secret_sealed: string | null;
  /** a call event's customer: its payload's `data.customerRef` is sealed (the sender opens it) */
  customer_hash: string | null;
};

/** How the claim shares the workers out: see `claimDue`. */
export type ClaimRules = {
  /** deliveries in flight at once per endpoint (across every process), while it is healthy */
  perEndpoint: number;
  /** failures in a row from which an endpoint is on probation: one delivery in flight at a time */
  probationAfter: number;
};

/**
 * Claims up to `limit` due deliveries for this worker, fairly: each endpoint (one per organisation) gets at
 * most `perEndpoint` deliveries in flight at once, counting those other workers hold (a live lease), and
 * one only once it has failed `probationAfter` times in a row; a paused endpoint (circuit open) gets
 * none. Endpoints take turns: every endpoint's first due delivery comes before any endpoint's second.
 * Test events ("Send test event") skip the queue, the cap and the pause: they go out at once.
 * Each claimed delivery is leased until `leaseUntil` (a worker that dies leaves it to be tried again after
 * the lease) and its attempt counted. FOR UPDATE SKIP LOCKED: concurrent workers never claim the same row.
 */
export async function claimDue(
  db: Db,
  now: Date,
  leaseUntil: Date,
  limit: number,
  rules: ClaimRules,
): Promise<DueDelivery[]> {
  const at = now.toISOString();
  // a deactivated organisation's deliveries wait (they go out only if an admin reactivates it)
  const due = sql`d.status = 'pending' and d.next_attempt_at <= ${at}::timestamptz
    and (d.locked_until is null or d.locked_until <= ${at}::timestamptz)
    and ${organisationActiveSql(sql`d.organisation_id`)}`;
  return db.rows<DueDelivery>(sql`
    with slots as (
      select we.organisation_id,
        (case when we.consecutive_failures >= ${rules.probationAfter}::int then 1 else ${rules.perEndpoint}::int end)
          - (select count(*) from webhook_deliveries b
             where b.organisation_id = we.organisation_id and b.status = 'pending' and b.locked_until is not null
               and b.locked_until > ${at}::timestamptz and b.event_type <> 'webhook.test')::int as free
      from webhook_endpoints we
      where we.paused_until is null or we.paused_until <= ${at}::timestamptz
    ),
    queued as (
      select x.id, x.next_attempt_at, x.turn from slots s
      cross join lateral (
        select d.id, d.next_attempt_at, row_number() over (order by d.next_attempt_at, d.id) as turn
        from (
          select d.id, d.next_attempt_at from webhook_deliveries d
          where d.organisation_id = s.organisation_id and ${due} and d.event_type <> 'webhook.test'
          order by d.next_attempt_at, d.id
          limit greatest(s.free, 0)
          for update of d skip locked
        ) d
      ) x
    ),
    tests as (
      select d.id from webhook_deliveries d
      where ${due} and d.event_type = 'webhook.test'
      order by d.next_attempt_at, d.id
      limit ${limit}::int
      for update of d skip locked
    ),
    picked as (
      select id from tests
      union all
      select id from (select id from queued order by turn, next_attempt_at, id limit ${limit}::int) q
    ),
    claimed as (
      update webhook_deliveries d set locked_until = ${leaseUntil.toISOString()}::timestamptz,
        attempts = d.attempts + 1, last_attempt_at = ${at}::timestamptz
      from picked where d.id = picked.id
      returning d.id, d.organisation_id, d.event_type, d.message_id, d.payload, d.attempts, d.created_at, d.customer_hash
    )
    select c.id, c.organisation_id, c.event_type, c.message_id, c.payload, c.attempts, c.created_at,
      c.customer_hash, we.url, we.secret_sealed
    from claimed c left join webhook_endpoints we on we.organisation_id = c.organisation_id`);
}

/**
 * The circuit breaker's bookkeeping after an attempt to the organisation's endpoint: a success closes it
 * (no failures in a row, not paused); a failure counts one more in a row and, from `openAfter` on, pauses
 * the endpoint as a whole for `pauseMs(failures)`. Returns the endpoint's state (null for a failure without one).
 */
export async function recordEndpointOutcome(
  db: Db,
  organisationId: number,
  p: { ok: boolean; now: Date; openAfter: number; pauseMs: (failures: number) => number },
): Promise<{ consecutiveFailures: number; pausedUntil: Date | null } | null> {
  if (p.ok) {
    await db
      .update(webhookEndpoints)
      .set({ consecutiveFailures: 0, pausedUntil: null })
      // (a healthy endpoint's row is left as it is: no write per delivery)
      .where(
        sql`${webhookEndpoints.organisationId} = ${organisationId}
          and (${webhookEndpoints.consecutiveFailures} > 0 or ${webhookEndpoints.pausedUntil} is not null)`,
      );
    return { consecutiveFailures: 0, pausedUntil: null };
  }
  const [counted] = await db
    .update(webhookEndpoints)
    .set({ consecutiveFailures: sql`${webhookEndpoints.consecutiveFailures} + 1` })
    .where(eq(webhookEndpoints.organisationId, organisationId))
    .returning({
      consecutiveFailures: webhookEndpoints.consecutiveFailures,
      pausedUntil: webhookEndpoints.pausedUntil,
    });
  if (!counted || counted.consecutiveFailures < p.openAfter) return counted ?? null;
  const pausedUntil = new Date(p.now.getTime() + p.pauseMs(counted.consecutiveFailures));
  await db
    .update(webhookEndpoints)
    .set({ pausedUntil })
    .where(
      sql`${webhookEndpoints.organisationId} = ${organisationId}
        and (${webhookEndpoints.pausedUntil} is null or ${webhookEndpoints.pausedUntil} < ${pausedUntil.toISOString()}::timestamptz)`,
    );
  return { consecutiveFailures: counted.consecutiveFailures, pausedUntil };
}

export async function markDelivered(db: Db, id: number, status: number, now: Date) {
  await db
    .update(webhookDeliveries)
    .set({ status: "delivered", lastStatus: status, lastError: null, deliveredAt: now, lockedUntil: null })
    .where(eq(webhookDeliveries.id, id));
}

/** Records a failed attempt: tried again at `retryAt`, or failed for good when null. */
export async function markAttemptFailed(
  db: Db,
  id: number,
  p: { status: number | null; error: string; retryAt: Date | null },
) {
  await db
    .update(webhookDeliveries)
    .set({
      status: p.retryAt ? "pending" : "failed",
      lastStatus: p.status,
      lastError: p.error.slice(0, 200),
      lockedUntil: null,
      ...(p.retryAt ? { nextAttemptAt: p.retryAt } : {}),
    })
    .where(eq(webhookDeliveries.id, id));
}

/** After a start: pending deliveries waiting for a later retry are due now (none held by a live lease). */
export async function bringPendingForward(db: Db, now: Date) {
  await db.rows(sql`
    update webhook_deliveries set next_attempt_at = ${now.toISOString()}::timestamptz
    where status = 'pending' and next_attempt_at > ${now.toISOString()}::timestamptz
      and (locked_until is null or locked_until <= ${now.toISOString()}::timestamptz)`);
}

/** Deletes finished (delivered or failed) deliveries created before `cutoff`. */
export async function deleteFinishedDeliveriesBefore(db: Db, cutoff: Date) {
  await db.rows(sql`
    delete from webhook_deliveries where status <> 'pending' and created_at < ${cutoff.toISOString()}::timestamptz`);
}

/**
 * Erasure: deliveries whose event names the person (a code.verified carries the employee's name and
 * e-mail) no longer do: their body is replaced, and a pending one fails with that reason.
 */
export async function eraseFromDeliveries(db: Executor, person: { email: string }) {
  await db.execute(sql`
    update webhook_deliveries set
      payload = '{"erased":true}',
      status = case when status = 'pending' then 'failed' else status end,
      last_error = case when status = 'pending' then 'the person it named was erased' else last_error end
    where position(${JSON.stringify(person.email).slice(1, -1)}::text in payload) > 0`);
}
