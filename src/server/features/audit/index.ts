/** What other features use of the audit log: data protection's reads and its sanctioned changes. */
import type { Executor } from "@server/db/client";
import type { Erasure, Feature, Person } from "@server/features/feature";
import { checkpointAudit } from "./chain";
import checkpointOnClose from "./checkpoint-on-close";
import { eraseFromAudit } from "./maintenance";
import { eventsAbout } from "./repository";
import { applyRetention } from "./retention";
import auditRoutes from "./routes";

export { checkpointAudit, verifyAudit } from "./chain";
export {
  auditDetail,
  auditDetailSql,
  auditDetailTextSql,
  auditEventsSql,
  checkDeniedSql,
  lookUpOriginHostSql,
  reportSiteSql,
} from "./events";
export { auditFeed } from "./feed";
export { aboutPersonSql, cutAddressSql, cutAuditAddresses, recordErasure, wholeAddressSql } from "./maintenance";

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/** At most this many audit events in one export (newest are kept by retention anyway). */
const EXPORT_MAX_EVENTS = 100_000;

/** A string that names someone other than `email` (an e-mail address): not shown in the person's export. */
const namesSomeoneElse = (value: unknown, email: string) =>
  typeof value === "string" && value.includes("@") && value.toLowerCase() !== email;

/**
 * The audit log's part of an erasure, run last (admin/erasure.ts): the events keep their ids and actions
 * without the person's data, under their e-mail and every former one the other features found. Answers the
 * ids of the changed events, which the erasure's own event seals (recordErasure).
 */
export async function eraseAudit(tx: Executor, person: Person, erasure: Erasure): Promise<number[]> {
  const rows = await eraseFromAudit(tx, person);
  for (const email of erasure.formerEmails) rows.push(...(await eraseFromAudit(tx, { ...person, email })));
  return rows;
}

export const auditFeature: Feature = {
  name: "audit",
  purpose: "The audit log's views and exports, and retention of addresses and events.",
  tables: ["audit_log", "audit_chain", "audit_chain_mark", "audit_checkpoints"],
  routes: auditRoutes,
  plugins: [checkpointOnClose],
  jobs: [
    // At start, once serving (not in the way of the first answers), then hourly.
    {
      name: "retention",
      everyMs: HOUR_MS,
      firstAfterMs: 5_000,
      run: (app) => applyRetention(app.deps).then((r) => r.more),
    },
    // Every event is in the chain within a minute.
    { name: "audit checkpoint", everyMs: 20_000, run: (app) => checkpointAudit(app.deps) },
  ],
  // Last of all (admin/erasure.ts), for what the others found.
  erase: (tx, person, _now, erasure) => eraseAudit(tx, person, erasure),
  // The events where the person is the actor or the target; others in them appear only as ids, and an
  // address only on events the person performed.
  exportFor: async (deps, person) => ({
    auditEvents: (await eventsAbout(deps.db, person, EXPORT_MAX_EVENTS)).map((e) => {
      const own = e.actorId === person.id;
      const detail = own
        ? Object.fromEntries(Object.entries(e.detail ?? {}).filter(([, v]) => !namesSomeoneElse(v, person.email)))
        : null;
      return {
        id: e.id,
        at: e.at.toISOString(),
        action: e.action,
        outcome: e.outcome,
        actorId: e.actorId,
        organisationId: e.organisationId,
        target: namesSomeoneElse(e.target, person.email) ? null : e.target,
        ip: own ? e.ip : null,
        detail,
      };
    }),
  }),
};
