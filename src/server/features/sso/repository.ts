import type { Db, Executor } from "@server/db/client";
import { ssoConnections, ssoStates } from "@server/db/schema";
import { and, eq, isNull, lt, sql } from "drizzle-orm";

/** Every SQL statement of single sign-on: the `sso_connections` and `sso_states` tables. */

export type SsoConnectionRow = typeof ssoConnections.$inferSelect;

export async function findConnection(db: Executor, organisationId: number): Promise<SsoConnectionRow | undefined> {
  const [row] = await db.select().from(ssoConnections).where(eq(ssoConnections.organisationId, organisationId));
  return row;
}

/** Inserts or replaces the organisation's connection. */
export async function upsertConnection(
  db: Executor,
  values: Omit<SsoConnectionRow, "createdAt" | "updatedAt"> & { now: Date },
) {
  const { now, ...row } = values;
  await db
    .insert(ssoConnections)
    .values({ ...row, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({
      target: ssoConnections.organisationId,
      set: {
        issuer: row.issuer,
        clientId: row.clientId,
        clientSecretSealed: row.clientSecretSealed,
        secretHint: row.secretHint,
        enforced: row.enforced,
        jitProvisioning: row.jitProvisioning,
        updatedAt: now,
      },
    });
}

export async function deleteConnection(db: Executor, organisationId: number): Promise<boolean> {
  const gone = await db
    .delete(ssoConnections)
    .where(eq(ssoConnections.organisationId, organisationId))
    .returning({ id: ssoConnections.organisationId });
  return gone.length > 0;
}

/** Whether the organisation's clients must sign in through SSO. */
export async function isEnforced(db: Executor, organisationId: number): Promise<boolean> {
  const [row] = await db
    .select({ enforced: ssoConnections.enforced })
    .from(ssoConnections)
    .where(eq(ssoConnections.organisationId, organisationId));
  return row?.enforced === true;
}

// ---- attempts in flight ----

export async function insertState(
  db: Executor,
  values: {
    stateHash: string;
    binding: string;
    organisationId: number;
    issuer: string;
    clientId: string;
    now: Date;
    lifetimeMs: number;
  },
) {
  await db.insert(ssoStates).values({
    stateHash: values.stateHash,
    binding: values.binding,
    organisationId: values.organisationId,
    issuer: values.issuer,
    clientId: values.clientId,
    createdAt: values.now,
    expiresAt: new Date(values.now.getTime() + values.lifetimeMs),
  });
}

export type StateUse =
  | { ok: true; organisationId: number; issuer: string; clientId: string }
  | { ok: false; why: "unknown" | "used" | "other browser" | "expired" };

/**
 * Uses up a state in one statement: it must exist for this browser's binding, be unused and unexpired.
 * When it cannot, says why (for the audit log and the reason shown).
 */
export async function consumeState(db: Db, stateHash: string, binding: string, now: Date): Promise<StateUse> {
  const [used] = await db
    .update(ssoStates)
    .set({ usedAt: now })
    .where(
      and(
        eq(ssoStates.stateHash, stateHash),
        eq(ssoStates.binding, binding),
        isNull(ssoStates.usedAt),
        sql`${ssoStates.expiresAt} > ${now.toISOString()}::timestamptz`,
      ),
    )
    .returning({ organisationId: ssoStates.organisationId, issuer: ssoStates.issuer, clientId: ssoStates.clientId });
  if (used) return { ok: true, ...used };
  const [row] = await db.select().from(ssoStates).where(eq(ssoStates.stateHash, stateHash));
  if (!row) return { ok: false, why: "unknown" };
  if (row.binding !== binding) return { ok: false, why: "other browser" };
  if (row.usedAt) return { ok: false, why: "used" };
  return { ok: false, why: "expired" };
}

/** States are kept a day after they expire (a replay then still says "used"), then deleted. */
export async function deleteStatesExpiredBefore(db: Db, before: Date) {
  await db.delete(ssoStates).where(lt(ssoStates.expiresAt, before));
}
