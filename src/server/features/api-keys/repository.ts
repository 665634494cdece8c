import { type Db, type Executor, type Statement, statement } from "@server/db/client";
import { apiKeys } from "@server/db/schema";
import { lockOrganisation, organisationActiveSql } from "@server/features/organisations";
import { userActiveSql } from "@server/features/users";
import { hitPlaceholders } from "@server/lib/rate-limit";
import type { ApiKeyScope } from "@shared/api-keys";
import { and, asc, eq, inArray, isNull, type SQL, sql } from "drizzle-orm";

export type ApiKeyRow = typeof apiKeys.$inferSelect;

/** An organisation's keys that still work (revoked ones are kept for the audit, never listed), oldest first. */
export function listKeys(db: Db, organisationId: number) {
  return db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.organisationId, organisationId), isNull(apiKeys.revokedAt)))
    .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
}

/**
 * Stores a new key unless the organisation already has `max` unrevoked keys: the count and the insert
 * run under the organisation's row lock, so parallel creations cannot pass the limit. Null when full.
 */
export async function insertKey(
  db: Db,
  p: {
    organisationId: number;
    name: string;
    scopes: ApiKeyScope[];
    prefix: string;
    keyHash: string;
    createdBy: number;
    now: Date;
    max: number;
  },
): Promise<ApiKeyRow | null> {
  return db.transaction(async (tx) => {
    await lockOrganisation(tx, p.organisationId);
    const [count] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(apiKeys)
      .where(and(eq(apiKeys.organisationId, p.organisationId), isNull(apiKeys.revokedAt)));
    if ((count?.n ?? 0) >= p.max) return null;
    const [row] = await tx
      .insert(apiKeys)
      .values({
        organisationId: p.organisationId,
        name: p.name,
        scopes: p.scopes,
        prefix: p.prefix,
        keyHash: p.keyHash,
        createdBy: p.createdBy,
        createdAt: p.now,
      })
      .returning();
    return row ?? null;
  });
}

/** Revokes one unrevoked key of the organisation; returns it, or undefined when there is no such key. */
export async function revokeKey(db: Db, organisationId: number, id: number, now: Date) {
  const [row] = await db
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(eq(apiKeys.id, id), eq(apiKeys.organisationId, organisationId), isNull(apiKeys.revokedAt)))
    .returning();
  return row;
}

/** Revokes every unrevoked key these accounts created (their deactivation); returns the keys revoked. */
export async function revokeKeysCreatedBy(db: Executor, userIds: number[], now: Date) {
  if (userIds.length === 0) return [];
  return db
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(inArray(apiKeys.createdBy, userIds), isNull(apiKeys.revokedAt)))
    .returning();
}

export type PresentedKey = {
  id: number;
  organisation_id: number;
  name: string;
  prefix: string;
  key_hash: string;
  scopes: ApiKeyScope[];
  last_used_at: Date | null;
  use_audited: Record<string, string>;
  /** the key works: not revoked, its creator active, its organisation not deactivated */
  usable: boolean;
};

/**
 * The key with this prefix, as one statement on every /api/v1 call: a key works only while its creator is
 * active (the users feature's fragment) and its organisation is active (the
 * organisations feature's one rule: an admin's deactivation of the employer or of the domain deactivates
 * the organisation; docs/security.md).
 */
const presentedKeySql = sql`
  select k.id, k.organisation_id, k.name, k.prefix, k.key_hash, k.scopes, k.last_used_at, k.use_audited,
    (k.revoked_at is null
      and ${userActiveSql(sql`k.created_by`)}
      and ${organisationActiveSql(sql`k.organisation_id`)}) as usable
  from api_keys k`;

export async function findPresentedKey(db: Db, prefix: string): Promise<PresentedKey | null> {
  const rows = await db.prepared<PresentedKey>(
    "api_key_find",
    sql`${presentedKeySql} where k.prefix = ${prefix}::text`,
  );
  return rows[0] ?? null;
}

const $ = (name: string) => sql.placeholder(name);

/** A hot route's key statement and its `work` alone (for a key checked already), each built once. */
export type KeyedStatement = {
  withKey: Statement;
  alone: Statement;
  /** sets the key's rate-limit hit's placeholders in a statement's values */
  fillHit: ReturnType<typeof hitPlaceholders>["fill"];
};

/**
 * `findPresentedKey`, the key's rate-limit hit and the caller's `work` in one statement (a hot route's one
 * round trip), built once at module load like the look-up's: `work` is a scalar SQL expression over
 * placeholders of its own (not `prefix`, `id`, `hash` or `key_…`), evaluated only when the hit was let
 * through; the hit counts only when the key is usable and `hash` is its stored hash. The caller still compares
 * the hash in constant time and checks the scope before it uses `work`. `id` is the key's id as seen before (a
 * prefix names one key for good): no row when it differs. `calls`: the statements `work` calls as functions.
 */
export function keyedStatement(label: string, work: SQL, calls?: readonly Statement[]): KeyedStatement {
  const hit = hitPlaceholders("key", sql`exists (select 1 from k where k.usable and k.key_hash = ${$("hash")}::text)`);
  return {
    withKey: statement(
      `${label}_with_key`,
      sql`with k as (${presentedKeySql} where k.prefix = ${$("prefix")}::text and k.id = ${$("id")}::int),
        hit as (${hit.sql})
        select k.*, hit.allowed, hit.oldest, hit.refused, case when hit.allowed then ${work} end as work
        from k left join hit on true`,
      { calls },
    ),
    alone: statement(`${label}_alone`, sql`select ${work} as value`, { calls }),
    fillHit: hit.fill,
  };
}

/** What a `keyedStatement`'s `withKey` answers: the key, its rate-limit hit (none unless it matched), the caller's work. */
export type PresentedKeyAnd = PresentedKey & {
  allowed: boolean | null;
  oldest: Date | null;
  refused: number | null;
  work: unknown;
};

/**
 * Records a use: `last_used_at` (written at most every `touchEveryMs`) and, when `auditKind` is due, that
 * kind's audit time. The condition on the kind's previous time makes exactly one of several parallel
 * requests (in any process) win the audit. Returns whether this request audits the use.
 */
export async function recordUse(
  db: Db,
  p: { id: number; now: Date; auditKind: string | null; previousAudit: string | null },
): Promise<boolean> {
  const now = p.now.toISOString();
  if (p.auditKind === null) {
    await db.prepared(
      "api_key_touch",
      sql`update api_keys set last_used_at = ${now}::timestamptz where id = ${p.id}::int`,
    );
    return false;
  }
  const rows = await db.prepared<{ id: number }>(
    "api_key_use_audit",
    sql`
      update api_keys set last_used_at = ${now}::timestamptz,
        use_audited = use_audited || jsonb_build_object(${p.auditKind}::text, ${now}::text)
      where id = ${p.id}::int and (use_audited ->> ${p.auditKind}::text) is not distinct from ${p.previousAudit}::text
      returning id`,
  );
  return rows.length > 0;
}

/** The name of the organisation's key with this prefix (revoked ones too), for "pressed Yes through {key name}". */
export async function keyNameByPrefix(db: Db, organisationId: number, prefix: string): Promise<string | null> {
  const [row] = await db
    .select({ name: apiKeys.name })
    .from(apiKeys)
    .where(and(eq(apiKeys.organisationId, organisationId), eq(apiKeys.prefix, prefix)));
  return row?.name ?? null;
}
