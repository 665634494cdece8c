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
    // Saving the endpoint (a new URL, or the same one fixed) closes its circuit breaker, and its share of
    // deliveries in flight starts again from the least.
    consecutiveFailures: 0,
    pausedUntil: null,
    inFlightCap: sql`default`,
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
  /** when the endpoint it goes to was saved: its outcome counts for that endpoint only, not one saved since */
  endpoint_saved_at: Date | null;
  /** a call event's customer: its payload's `data.customerRef` is sealed (the sender opens it) */
  customer_hash: string | null;
};

/** How the claim shares the workers out: see `claimDue`. */
export type ClaimRules = {
  /** failures in a row from which an endpoint is on probation: one delivery in flight at a time */
  probationAfter: number;
};

/**
 * Claims up to `limit` due deliveries for this worker, fairly: each endpoint (one per organisation) gets at
 * most its `in_flight_cap` deliveries in flight at once, counting those other workers hold (a live lease),
 * and one only once it has failed `probationAfter` times in a row; a paused endpoint (circuit open) gets
 * none. Endpoints take turns: every endpoint's first due delivery comes before any endpoint's second.
 * A call's events go out one at a time, in the order they happened (receivers ignore an event whose
 * `sequence` is older than one they have): each waits while an earlier one is in flight or due again later.
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
        (case when we.consecutive_failures >= ${rules.probationAfter}::int then 1 else we.in_flight_cap end)
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
            -- a call's events in order: none while an earlier one of the call is in flight or waits to be retried
            and (d.call_id is null or not exists (
              select 1 from webhook_deliveries e
              where e.call_id = d.call_id and e.status = 'pending' and e.id < d.id))
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
      c.customer_hash, we.url, we.secret_sealed, we.created_at as endpoint_saved_at
    from claimed c left join webhook_endpoints we on we.organisation_id = c.organisation_id`);
}

/** One finished attempt at a claimed delivery, as `recordAttempts` writes it. */
export type FinishedAttempt = {
  id: number;
  organisationId: number;
  ok: boolean;
  /** the receiver's HTTP status, if it answered */
  status: number | null;
  /** why it failed (null when delivered) */
  error: string | null;
  /** a failed attempt's retry; null: failed for good */
  retryAt: Date | null;
  /** the receiver answered 2xx within the time that grows its share (`WEBHOOK_FAIRNESS.fastMs`, service.ts) */
  fast: boolean;
  /** the endpoint as it was saved when the delivery was claimed (`DueDelivery.endpoint_saved_at`) */
  endpointSavedAt: Date | null;
};

/** How an endpoint's share of deliveries in flight (`in_flight_cap`) moves: see `recordAttempts`. */
export type CapRules = { least: number; most: number };

/** What `recordAttempts` changed on an endpoint: its failures in a row before and after. */
export type EndpointChange = { organisationId: number; failuresBefore: number; failures: number };

/**
 * Writes a batch of finished attempts in one statement: each delivery is delivered, due again at its
 * retry or failed for good, and its lease ends; and each endpoint's bookkeeping, in the order the attempts
 * ended. The circuit breaker: a success sets the failures in a row back to 0 and ends a pause; each
 * failure counts one more. The endpoint's share of deliveries in flight: one more for each fast success
 * (so it doubles with each round of answers, up to `most`), halved (down to `least`) when an attempt of
 * the batch failed or was slow. A healthy endpoint at its full share is not written.
 * Returns the endpoints whose failures in a row changed (the caller pauses those that reached the breaker).
 */
export async function recordAttempts(
  db: Db,
  attempts: readonly FinishedAttempt[],
  now: Date,
  cap: CapRules,
): Promise<EndpointChange[]> {
  if (attempts.length === 0) return [];
  // Per endpoint as it was saved, in the order the attempts ended: a success seen, the failures after the
  // last one, the fast successes, and whether any attempt failed or was slow. An endpoint saved again since
  // (a new URL, or the same one fixed) starts afresh: attempts made to the one before do not count for it.
  type Tally = {
    organisation_id: number;
    saved_at: string;
    ok_seen: boolean;
    failures: number;
    fast: number;
    shrink: boolean;
  };
  const endpoints = new Map<string, Tally>();
  for (const a of attempts) {
    if (!a.endpointSavedAt) continue;
    const key = `${a.organisationId} ${a.endpointSavedAt.toISOString()}`;
    const e = endpoints.get(key) ?? {
      organisation_id: a.organisationId,
      saved_at: a.endpointSavedAt.toISOString(),
      ok_seen: false,
      failures: 0,
      fast: 0,
      shrink: false,
    };
    if (a.ok) {
      e.ok_seen = true;
      e.failures = 0;
    } else e.failures++;
    if (a.ok && a.fast) e.fast++;
    else e.shrink = true;
    endpoints.set(key, e);
  }
  const rows = attempts.map((a) => ({
    id: a.id,
    ok: a.ok,
    status: a.status,
    error: a.error?.slice(0, 200) ?? null,
    retry_at: a.retryAt?.toISOString() ?? null,
  }));
  return db.rows<EndpointChange>(sql`
    with a as (
      select * from json_to_recordset(${JSON.stringify(rows)}::json)
        as a(id bigint, ok boolean, status int, error text, retry_at timestamptz)
    ),
    marked as (
      update webhook_deliveries d set
        status = case when a.ok then 'delivered' when a.retry_at is not null then 'pending' else 'failed' end,
        last_status = a.status, last_error = a.error, locked_until = null,
        delivered_at = case when a.ok then ${now.toISOString()}::timestamptz else d.delivered_at end,
        next_attempt_at = coalesce(a.retry_at, d.next_attempt_at)
      -- a delivery failed meanwhile (its endpoint removed, the person it named erased) stays failed
      from a where d.id = a.id and d.status = 'pending'
      returning d.id
    ),
    e as (
      select we.organisation_id, we.consecutive_failures as before,
        case when x.ok_seen then x.failures else we.consecutive_failures + x.failures end as failures,
        x.ok_seen,
        case when x.shrink then greatest(we.in_flight_cap / 2, ${cap.least}::int)
          else least(we.in_flight_cap + x.fast, ${cap.most}::int) end as share
      from json_to_recordset(${JSON.stringify([...endpoints.values()])}::json)
        as x(organisation_id int, saved_at timestamptz, ok_seen boolean, failures int, fast int, shrink boolean)
      join webhook_endpoints we on we.organisation_id = x.organisation_id and we.created_at = x.saved_at
    ),
    noted as (
      update webhook_endpoints we set consecutive_failures = e.failures,
        paused_until = case when e.ok_seen then null else we.paused_until end,
        in_flight_cap = e.share
      from e
      where we.organisation_id = e.organisation_id
        and (we.consecutive_failures <> e.failures or (e.ok_seen and we.paused_until is not null)
          or we.in_flight_cap <> e.share)
      returning we.organisation_id, e.before, e.failures
    )
    select organisation_id as "organisationId", before as "failuresBefore", failures from noted
    where before <> failures`);
}

/**
 * Pauses the endpoint (circuit open) until `until`, or longer if it already is: only while it still has `opens`
 * failures in a row. Saving the endpoint between the attempts' record and this pause (it closes the breaker)
 * or an answer that reset the count meanwhile leaves it unpaused.
 */
export async function pauseEndpoint(db: Db, organisationId: number, until: Date, opens: number) {
  await db
    .update(webhookEndpoints)
    .set({ pausedUntil: until })
    .where(
      sql`${webhookEndpoints.organisationId} = ${organisationId}
        and ${webhookEndpoints.consecutiveFailures} >= ${opens}::int
        and (${webhookEndpoints.pausedUntil} is null or ${webhookEndpoints.pausedUntil} < ${until.toISOString()}::timestamptz)`,
    );
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
