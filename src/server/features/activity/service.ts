import type { Actor, Deps } from "@server/context";
import { organisationFor } from "@server/features/organisations";
import { ACTIVITY_DAYS, type ActivityDay } from "@shared/activity";
import * as repo from "./repository";

const DAY_MS = 86_400_000;

/**
 * The last 30 UTC days (today included) of an organisation, oldest first, every day present. A superuser
 * sees their own; an admin the one named by `?organisationId=` (none: every day zero).
 */
export async function activity(deps: Deps, actor: Actor, query: { organisationId?: number }): Promise<ActivityDay[]> {
  return organisationActivity(deps, organisationFor(actor, { requested: query.organisationId, orNone: true }));
}

/** The last 30 UTC days of one organisation (null: every day zero), as GET /api/employer/activity answers. */
export async function organisationActivity(deps: Deps, organisationId: number | null): Promise<ActivityDay[]> {
  const today = Math.floor(deps.clock.now().getTime() / DAY_MS) * DAY_MS;
  const from = new Date(today - (ACTIVITY_DAYS - 1) * DAY_MS);
  const counts = organisationId === null ? [] : await repo.dailyCounts(deps.db, organisationId, from);
  const byDay = new Map(counts.map((c) => [c.day, c]));
  return Array.from({ length: ACTIVITY_DAYS }, (_, i) => {
    const day = new Date(from.getTime() + i * DAY_MS).toISOString().slice(0, 10);
    const c = byDay.get(day);
    return {
      day,
      generated: c?.generated ?? 0,
      verified: c?.verified ?? 0,
      failedLookups: c?.failed_lookups ?? 0,
      reports: c?.reports ?? 0,
    };
  });
}
