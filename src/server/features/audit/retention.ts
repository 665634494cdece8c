import type { Deps } from "@server/context";
import { cutSessionAddresses } from "@server/features/users";
import { checkpointAudit, cutAuditBefore } from "./chain";
import { cutAddressSql, cutAuditAddresses, wholeAddressSql } from "./maintenance";

const DAY_MS = 86_400_000;

/**
 * Events one transaction of retention changes at most (addresses cut, events deleted): a batch stays well
 * within the 10 s statement timeout whatever the backlog (at 100 M events on the shared 2-core machine, a
 * batch of addresses took 1.4 s on average and 3 s at most: docs/scaling.md).
 */
export const RETENTION_BATCH = 5_000;
/** How long one run works through batches before it hands the runner back (asking for another turn at once). */
const RUN_BUDGET_MS = 5_000;

/**
 * Retention: client addresses kept longer than RETENTION_IP_DAYS (in the audit log, where reports' are
 * too, and in sessions) are cut to their /24 or /48; audit events older than RETENTION_AUDIT_DAYS are
 * deleted, whole checkpointed segments at a time, the cut recorded in a signed checkpoint (so `audit verify`
 * still proves what is kept). Run at start and every hour, in batches of RETENTION_BATCH events, each its own
 * transaction, for up to RUN_BUDGET_MS; `more` says a backlog (a long stop, a busy hour) is left, and the
 * job then runs again at once, so that shutdown never waits for a whole backlog.
 */
export async function applyRetention(deps: Deps) {
  const now = deps.clock.now().getTime();
  const ipBefore = new Date(now - deps.config.retentionIpDays * DAY_MS);
  const auditBefore = new Date(now - deps.config.retentionAuditDays * DAY_MS);
  // Only checkpointed events are deleted (whole segments): bring the chain up to date first.
  await checkpointAudit(deps);
  const started = performance.now();
  const done = { cut: 0, deleted: 0, more: false };
  let cutting = true;
  let deleting = true;
  for (let batch = 0; cutting || deleting; batch++) {
    if (batch > 0 && performance.now() - started > RUN_BUDGET_MS) {
      done.more = true;
      break;
    }
    await deps.db.transaction(async (tx) => {
      if (cutting) {
        // the run's first batch looks an hour behind the mark again, for events that committed late
        const { cut, more } = await cutAuditAddresses(tx, ipBefore, { limit: RETENTION_BATCH, lookBack: batch === 0 });
        done.cut += cut;
        cutting = more;
      }
      if (batch === 0) await cutSessionAddresses(tx, ipBefore, cutAddressSql("ip"), wholeAddressSql("ip"));
      if (deleting) {
        const deleted = await cutAuditBefore(tx, deps.config.appSecret, auditBefore, deps.clock.now(), RETENTION_BATCH);
        done.deleted += deleted;
        deleting = deleted >= RETENTION_BATCH;
      }
    });
    // Let the requests that queued behind this batch run before the next one.
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (done.cut > 0 || done.deleted > 0) deps.log.info(done, "retention: audit addresses cut, old events deleted");
  return done;
}
