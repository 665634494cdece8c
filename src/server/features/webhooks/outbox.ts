import { type Deps, publishAfterCommit } from "@server/context";
import { organisationActiveSql } from "@server/features/organisations";
import type { WEBHOOK_EVENT_NAMES } from "@shared/webhooks";
import type { Placeholder, SQL } from "drizzle-orm";
import { sql } from "drizzle-orm";

/** Wakes the webhook workers of every process: a delivery is due. */
export const WEBHOOK_WAKE_CHANNEL = "webhook_deliveries";

/** The events an endpoint can take (WEBHOOK_EVENT_NAMES), and the dashboard's test event. */
export type WebhookEvent = (typeof WEBHOOK_EVENT_NAMES)[number] | "webhook.test";

/**
 * The body of a CTE that queues an event in the outbox for the endpoint of the organisation, if it has
 * one that takes the event and is active (a deactivated organisation gets no deliveries: features/
 * organisations): `from` is the CTE (or table) the event comes from, `organisationId` and
 * `data` are expressions over it. Written in the statement of the event itself, so both commit together.
 * The body is the Standard Webhooks envelope `{type, timestamp, data}`; the `webhook-id` a fresh `msg_…`.
 * A call event names its customer (`customerHash`, whose presence also says that `data.customerRef` is
 * kept sealed: the sender opens it, so the reference is never in clear at rest) and its call (`callId`).
 */
export function queueDeliveries(p: {
  type: WebhookEvent;
  /** the event's time as ISO text, or a placeholder of a statement built once */
  now: string | Placeholder;
  from: SQL;
  organisationId: SQL;
  data: SQL;
  customerHash?: SQL;
  callId?: SQL;
}): SQL {
  return sql`
    insert into webhook_deliveries (message_id, organisation_id, event_type, payload, created_at, next_attempt_at,
      customer_hash, call_id)
    select 'msg_' || replace(gen_random_uuid()::text, '-', ''), we.organisation_id, ${p.type}::text,
      jsonb_build_object('type', ${p.type}::text, 'timestamp', ${p.now}::text, 'data', ${p.data})::text,
      ${p.now}::timestamptz, ${p.now}::timestamptz, ${p.customerHash ?? sql`null`}::text, ${p.callId ?? sql`null`}::text
    from ${p.from} join webhook_endpoints we on we.organisation_id = ${p.organisationId}
    where (${p.type}::text = any(we.events) or ${p.type}::text = 'webhook.test')
      and ${organisationActiveSql(sql`we.organisation_id`)}
    returning id`;
}

/**
 * Wakes the workers of every process after the statement that queued a delivery committed (decision 010):
 * the hot paths' statements do not NOTIFY themselves. A wake-up lost on the way costs at most the workers'
 * poll (2 s): the delivery row committed with the event.
 */
export function wakeWorkersAfterCommit(deps: Pick<Deps, "background" | "notifications">) {
  publishAfterCommit(deps, WEBHOOK_WAKE_CHANNEL, [""]);
}
