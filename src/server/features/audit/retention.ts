import type { Deps } from "@server/context";
import { cutSessionAddresses } from "@server/features/users";
import { checkpointAudit, cutAuditBefore } from "./chain";
import { cutAddressSql, cutAuditAddresses, wholeAddressSql } from "./maintenance";

const DAY_MS = 86_400_000;

/**
 * Retention: client addresses kept longer than RETENTION_IP_DAYS (in the audit log, where reports' are
 * too, and in sessions) are cut to their /24 or /48; audit events older than RETENTION_AUDIT_DAYS are
 * deleted, whole checkpointed segments at a time, the cut recorded in a signed checkpoint (so `audit verify`
 * still proves what is kept). One transaction; run at start and every hour.
 */
export async function applyRetention(deps: Deps) {
  const now = deps.clock.now().getTime();
  const ipBefore = new Date(now - deps.config.retentionIpDays * DAY_MS);
  const auditBefore = new Date(now - deps.config.retentionAuditDays * DAY_MS);
  // Only checkpointed events are deleted (whole segments): bring the chain up to date first.
  await checkpointAudit(deps);
  const done = await deps.db.transaction(async (tx) => {
    const cut = await cutAuditAddresses(tx, ipBefore);
    await cutSessionAddresses(tx, ipBefore, cutAddressSql("ip"), wholeAddressSql("ip"));
    const deleted = await cutAuditBefore(tx, deps.config.appSecret, auditBefore, deps.clock.now());
    return { cut, deleted };
  });
  if (done.cut > 0 || done.deleted > 0) deps.log.info(done, "retention: audit addresses cut, old events deleted");
  return done;
}
