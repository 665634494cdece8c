import type { Db, Executor } from "@server/db/client";
import { webhookDeliveries, webhookEndpoints } from "@server/db/schema";
import { desc, eq, sql } from "drizzle-orm";
import { queueDeliveries, wakeWorkers } from "./outbox";

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

/** Queues a `webhook.test` event for the organisation's endpoint and wakes the workers. */
export async function queueTestEvent(db: Db, organisationId: number, now: Date) {
  const at = now.toISOString();
  await db.rows(sql`
    with org as (select ${organisationId}::int as id),
    queued as (${queueDeliveries({
      type: "webhook.test",
      now: at,
      from: sql`org`,
      organisationId: sql`org.id`,
      data: sql`jsonb_build_object('message', 'A test event from CallProof.')`,
    })}),
    woken as (${wakeWorkers(sql`queued`)})
    select (select count(*) from queued) as queued, (select count(*) from woken) as woken`);
}

export type DueDelivery = {
  id: number;
  message_id: string;
  payload: string;
  attempts: number;
  created_at: Date;
  url: string | null;
  secret_sealed: string | null;
};

/**
 * Claims up to `limit` due deliveries for this worker: each is leased until `leaseUntil` (another worker
 * skips it meanwhile; a worker that dies leaves it to be tried again after the lease) and its attempt
 * counted. FOR UPDATE SKIP LOCKED: concurrent workers never claim the same row.
 */
export async function claimDue(db: Db, now: Date, leaseUntil: Date, limit: number): Promise<DueDelivery[]> {
  return db.rows<DueDelivery>(sql`
    with due as (
      select id from webhook_deliveries
      where status = 'pending' and next_attempt_at <= ${now.toISOString()}::timestamptz
        and (locked_until is null or locked_until <= ${now.toISOString()}::timestamptz)
      order by next_attempt_at
      limit ${limit}
      for update skip locked
    ),
    claimed as (
      update webhook_deliveries d set locked_until = ${leaseUntil.toISOString()}::timestamptz,
        attempts = d.attempts + 1, last_attempt_at = ${now.toISOString()}::timestamptz
      from due where d.id = due.id
      returning d.id, d.message_id, d.payload, d.attempts, d.created_at, d.organisation_id
    )
    select c.id, c.message_id, c.payload, c.attempts, c.created_at, we.url, we.secret_sealed
    from claimed c left join webhook_endpoints we on we.organisation_id = c.organisation_id`);
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
