import type { Executor } from "@server/db/client";
import { auditLog } from "@server/db/schema";
import type { AuditEvent } from "@server/lib/audit";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { sql } from "drizzle-orm";
import { CHAIN_LOCK, erasureDetail } from "./chain";

/**
 * The only changes the product makes to its append-only audit log: erasing a person, cutting stored
 * addresses, deleting events past retention. Each runs in a transaction that says so
 * (`callproof.audit_maintenance`, which the append-only trigger checks); any other change is refused.
 */
/** How many rows a statement returned (node-postgres and PGlite both answer `{rows}`). */
const rowCount = (result: unknown) => (result as { rows: unknown[] }).rows.length;

async function allowMaintenance(tx: Executor) {
  await tx.execute(sql`select set_config('callproof.audit_maintenance', 'on', true)`);
  // One at a time with the checkpoint job: it must not chain values it read before this change commits.
  await tx.execute(sql`select pg_advisory_xact_lock(${CHAIN_LOCK})`);
}

/** A stored address cut to its /24 (IPv4) or /48 (IPv6); a cut one stays as it is. SQL over a text column. */
export const cutAddressSql = (column: string) =>
  sql.raw(`case
    when ${column} ~* '^::ffff:[0-9.]+$' then network(set_masklen(substring(${column} from 8)::inet, 24))::text
    when family(${column}::inet) = 4 then network(set_masklen(${column}::inet, 24))::text
    else network(set_masklen(${column}::inet, 48))::text end`);

/** Whether a stored address is whole (not cut yet: a cut one is a network, with "/"). SQL over a text column. */
export const wholeAddressSql = (column: string) => sql.raw(`(${column} ~ '^[0-9a-fA-F:.]+$')`);

/**
 * Cuts the addresses of audit events older than `before`, one batch: returns how many it cut and whether
 * more remain. It reads only the events since the last cut (`audit_chain_mark.addresses_cut_before`; with
 * `lookBack`, from an hour before it, for events whose transaction ended late), and at most `limit` of them
 * past the mark, so a batch is about the same work whatever the history (issue 36: at 10 M events the
 * whole-log statement ran past the 10 s statement timeout) and however far behind the mark is (at 100 M
 * events half a day's addresses, a batch bounded only by time, took longer than the timeout too, and
 * every later run, with more to cut, failed the same way). Without a mark, it starts at the oldest event.
 * Times go to and from the database as its own text, so no microsecond is lost on the way.
 */
export async function cutAuditAddresses(
  tx: Executor,
  before: Date,
  p: { limit: number; lookBack: boolean },
): Promise<{ cut: number; more: boolean }> {
  await allowMaintenance(tx);
  const [range] = (
    (await tx.execute(sql`
      with mark as (select addresses_cut_before as at from audit_chain_mark where id = 1),
      next as (
        select at from audit_log
        where at > coalesce((select at from mark), '-infinity') and at < ${before.toISOString()}::timestamptz
        order by at offset ${p.limit}::int limit 1
      )
      select (select min(at) from audit_log where at >= coalesce(
          (select at from mark) - ${p.lookBack ? "1 hour" : "0"}::interval, '-infinity'))::text as "from",
        coalesce((select at from next), ${before.toISOString()}::timestamptz)::text as until,
        exists (select 1 from next) as more`)) as unknown as {
      rows: { from: string | null; until: string; more: boolean }[];
    }
  ).rows;
  if (!range?.from) return { cut: 0, more: false };
  const rows = await tx.execute(sql`
    with cut as (
      update audit_log set ip = ${cutAddressSql("ip")}
      where at >= ${range.from}::timestamptz and at < ${range.until}::timestamptz
        and ip is not null and ${wholeAddressSql("ip")}
      returning id
    ), unsalted as (
      update audit_chain c set salts = c.salts - 'ip' from cut where c.event_id = cut.id returning 1
    )
    select id from cut`);
  await tx.execute(sql`
    insert into audit_chain_mark (id, below, addresses_cut_before) values (1, 0, ${range.until}::timestamptz)
    on conflict (id) do update set addresses_cut_before = greatest(audit_chain_mark.addresses_cut_before, excluded.addresses_cut_before)`);
  return { cut: rowCount(rows), more: range.more };
}

const USER_ACTIONS = [
  AUDIT_ACTIONS.deactivateEmployee,
  AUDIT_ACTIONS.activateAccount,
  AUDIT_ACTIONS.deactivateEmployer,
  // SCIM's changes name the account by id (target)
  AUDIT_ACTIONS.scimCreateUser,
  AUDIT_ACTIONS.scimUpdateUser,
  AUDIT_ACTIONS.scimDeactivateUser,
  AUDIT_ACTIONS.scimReactivateUser,
  AUDIT_ACTIONS.scimDeleteUser,
];

/** Audit rows about a person: as the actor, or named as the target (by e-mail, or by id where the target is an account). */
export const aboutPersonSql = (person: { id: number; email: string }) => sql`(
  actor_id = ${person.id}::int or lower(actor_email) = ${person.email}::text or target = ${person.email}::text
  or (target = ${String(person.id)}::text and action = any(string_to_array(${USER_ACTIONS.join(",")}::text, ',')))
)`;

/**
 * Erasure (returns the ids of the events it changed, which the erasure event names for `audit verify`,
 * `recordErasure`):
 * the person's audit events keep their ids, times, actions and outcomes, but no longer name
 * them: the e-mail and address go, the target becomes `erased`, and detail keeps no value that is their
 * e-mail or name; their address keeps only its /24 or /48, as retention would leave it (the chain covers it).
 */
export async function eraseFromAudit(
  tx: Executor,
  person: { id: number; email: string; fullName: string },
): Promise<number[]> {
  await allowMaintenance(tx);
  const changed = await tx.execute(sql`
    with changed as (
    update audit_log set
      actor_email = case when actor_id = ${person.id}::int or lower(actor_email) = ${person.email}::text
        then null else actor_email end,
      ip = case when actor_id = ${person.id}::int and ${wholeAddressSql("ip")} then ${cutAddressSql("ip")} else ip end,
      target = case when target = ${person.email}::text then 'erased' else target end,
      detail = (
        select coalesce(jsonb_object_agg(k, v), '{}'::jsonb) from jsonb_each(coalesce(detail, '{}'::jsonb)) e(k, v)
        where v not in (to_jsonb(${person.email}::text), to_jsonb(${person.fullName}::text))
      )
    where ${aboutPersonSql(person)}
    returning id, actor_id
    ), unsalted as (
      -- The salts of the values erasure may change go; an address it leaves whole (someone else's, such as
      -- the employer's or the identity provider's on an event about the person) keeps its salt, so that
      -- \`audit verify\` still proves it.
      update audit_chain c set
        salts = case when changed.actor_id = ${person.id}::int then null else c.salts - 'email' - 'target' - 'detail' end
      from changed where c.event_id = changed.id returning 1
    )
    select id from changed`);
  return (changed as unknown as { rows: { id: number }[] }).rows.map((r) => Number(r.id));
}

/**
 * The erasure's own audit event, written in the erasure's transaction (so that no crash leaves changed
 * events without the event that accounts for them): it names the account (target), the events it changed
 * (`rows`) and seals what it left in each (`left`, chain.ts), which is all `audit verify` accepts there.
 */
export async function recordErasure(
  tx: Executor,
  appSecret: string,
  at: Date,
  event: Omit<AuditEvent, "action" | "outcome" | "target" | "detail">,
  erased: { account: number; rows: number[] },
) {
  await tx.insert(auditLog).values({
    at,
    action: AUDIT_ACTIONS.eraseAccount,
    outcome: "success",
    actorId: event.actorId ?? null,
    actorEmail: event.actorEmail ?? null,
    organisationId: event.organisationId ?? null,
    target: String(erased.account),
    ip: event.ip ?? null,
    detail: await erasureDetail(tx, appSecret, erased.account, erased.rows),
  });
}
