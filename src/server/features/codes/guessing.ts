import type { Deps } from "@server/context";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import * as repo from "./repository";

/** The window of the global failure budget. */
export const GUESSING_WINDOW_MS = 60_000;

/**
 * The global failure budget of code guessing (issue 18 N12): a guesser spread over many networks stays
 * under every per-client and per-/48 budget, so the whole platform's failed look-ups of the last minute
 * are counted too (from the audit rows the look-up writes anyway: nothing on the look-up's path). Above
 * CODE_GUESS_ALERT_PER_MINUTE, an alert is logged (level error, `alert: "code-guessing"`) and audited,
 * at most once a minute across every process. Nobody is refused for it: a real customer must still be
 * able to verify a call during an attack. Returns the figures of a raised alert, else null.
 */
export async function watchCodeGuessing(deps: Deps): Promise<{ failures: number; clients: number } | null> {
  const now = deps.clock.now();
  const budget = deps.config.codeGuessAlertPerMinute;
  const since = new Date(now.getTime() - GUESSING_WINDOW_MS);
  // Every 20 s, at most budget + 1 rows are read; the full count only when an alert is raised.
  if (!(await repo.failedLookupsExceed(deps.db, since, now, budget))) return null;
  // One alert a minute, whichever process sees it first.
  const claim = await deps.limits.hit("codes-guessing-alert", 1, GUESSING_WINDOW_MS, now);
  if (!claim.allowed) return null;
  const seen = await repo.failedLookupsBetween(deps.db, since, now);
  deps.log.error(
    { alert: "code-guessing", failures: seen.failures, clients: seen.clients, budget, windowSeconds: 60 },
    "failed code look-ups above the global budget: someone may be guessing codes (nobody is refused for it)",
  );
  await deps.audit.record({
    action: AUDIT_ACTIONS.codeGuessingAlert,
    outcome: "success",
    detail: { failures: seen.failures, clients: seen.clients, budget, windowSeconds: 60 },
  });
  return seen;
}
