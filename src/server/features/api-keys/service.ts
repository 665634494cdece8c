import { type Actor, auditActor, type Deps, signedInSession } from "@server/context";
import { organisationFor } from "@server/features/organisations";
import { assertRecentSignIn, findUserById, notifyOrganisationAdmins } from "@server/features/users";
import { refuse } from "@server/lib/audit";
import {
  API_KEY_BEARER,
  bearerCredential,
  bearerHash,
  bearerLookup,
  issueBearer,
  verifyBearer,
} from "@server/lib/bearer";
import { auditsRefusal, hitValues, type LimitResult, retryAfterSeconds } from "@server/lib/rate-limit";
import { API_KEY_LIMITS, type ApiKeyCreated, type ApiKeyItem, type ApiKeyScope } from "@shared/api-keys";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { sql } from "drizzle-orm";
import { apiKeysErrors } from "./errors";
import { keyCreatedMail, keysRevokedMail } from "./mails";
import * as repo from "./repository";

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

const itemOf = (row: repo.ApiKeyRow, creator: { id: number; fullName: string; email: string } | null): ApiKeyItem => ({
  id: row.id,
  name: row.name,
  scopes: row.scopes as ApiKeyScope[],
  prefix: row.prefix,
  createdAt: row.createdAt.toISOString(),
  lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  createdBy: creator,
});

/** The organisation's working keys, with who created each. */
export async function listKeys(deps: Deps, actor: Actor): Promise<ApiKeyItem[]> {
  const organisationId = organisationFor(actor);
  const rows = await repo.listKeys(deps.db, organisationId);
  const creators = new Map<number, { id: number; fullName: string; email: string } | null>();
  for (const id of new Set(rows.map((r) => r.createdBy))) {
    const user = await findUserById(deps.db, id);
    creators.set(id, user ? { id: user.id, fullName: user.fullName, email: user.email } : null);
  }
  return rows.map((r) => itemOf(r, creators.get(r.createdBy) ?? null));
}

/**
 * Creates a key (shown once; only its HMAC is kept): a superuser who signed in within the last 15 minutes,
 * at most 20 working keys per organisation. Every superuser of the organisation is told by e-mail.
 */
export async function createKey(
  deps: Deps,
  actor: Actor,
  input: { sessionHash: string | null; name: string; scopes: ApiKeyScope[] },
): Promise<ApiKeyCreated> {
  const { user, sessionHash } = signedInSession(actor, input.sessionHash);
  const organisationId = organisationFor(actor);
  const now = deps.clock.now();
  const audit = { ...auditActor(actor), action: AUDIT_ACTIONS.createApiKey, organisationId };
  await assertRecentSignIn(deps, actor, sessionHash, {
    action: AUDIT_ACTIONS.createApiKey,
    organisationId,
  });
  const { credential: key, lookup: prefix, hash } = issueBearer(deps.config.appSecret, API_KEY_BEARER);
  const row = await repo.insertKey(deps.db, {
    organisationId,
    name: input.name,
    scopes: input.scopes,
    prefix,
    keyHash: hash,
    createdBy: user.id,
    now,
    max: API_KEY_LIMITS.perOrganisation,
  });
  if (!row) {
    return refuse(deps, { ...audit, outcome: "failure", detail: { reason: "too many keys" } }, apiKeysErrors.tooMany());
  }
  await deps.audit.record({
    ...audit,
    outcome: "success",
    target: String(row.id),
    detail: { name: row.name, prefix, scopes: input.scopes },
  });
  deps.background.run("API key created mails", () =>
    notifyOrganisationAdmins(deps, organisationId, (to) =>
      keyCreatedMail(to, { name: row.name, prefix, scopes: input.scopes, by: user.email, at: now, ip: actor.ip }),
    ),
  );
  return { id: row.id, name: row.name, scopes: input.scopes, prefix, key };
}

/** Revokes a key of the caller's organisation: it stops working at once (every call looks it up). */
export async function revokeKey(deps: Deps, actor: Actor, input: { id: number }) {
  const organisationId = organisationFor(actor);
  const audit = {
    ...auditActor(actor),
    action: AUDIT_ACTIONS.revokeApiKey,
    organisationId,
    target: String(input.id),
  };
  const row = await repo.revokeKey(deps.db, organisationId, input.id, deps.clock.now());
  if (!row) {
    return refuse(deps, { ...audit, outcome: "failure", detail: { reason: "no such key" } }, apiKeysErrors.notFound());
  }
  await deps.audit.record({ ...audit, outcome: "success", detail: { name: row.name, prefix: row.prefix } });
  return { message: "API key revoked." };
}

/**
 * A step of the users' deactivation cascade: the keys the deactivated accounts created are revoked
 * (they had already stopped working: a key works only while its creator is active), audited, and the
 * organisation's other, still active superusers are told.
 */
export async function revokeKeysOfDeactivated(deps: Deps, userIds: number[]) {
  const now = deps.clock.now();
  const revoked = await repo.revokeKeysCreatedBy(deps.db, userIds, now);
  const byCreator = new Map<number, repo.ApiKeyRow[]>();
  for (const row of revoked) byCreator.set(row.createdBy, [...(byCreator.get(row.createdBy) ?? []), row]);
  for (const [creatorId, keys] of byCreator) {
    const organisationId = keys[0]?.organisationId as number;
    for (const row of keys) {
      await deps.audit.record({
        action: AUDIT_ACTIONS.revokeApiKey,
        outcome: "success",
        organisationId,
        target: String(row.id),
        detail: { name: row.name, prefix: row.prefix, reason: "creator deactivated", creatorId },
      });
    }
    const creator = await findUserById(deps.db, creatorId);
    deps.background.run("API keys revoked mails", () =>
      notifyOrganisationAdmins(deps, organisationId, (to) =>
        keysRevokedMail(to, { keys, creator: creator?.email ?? `account ${creatorId}`, at: now }),
      ),
    );
  }
}

/** The key of an /api/v1 call, as its routes see it. */
export type ApiKeyCaller = { id: number; organisationId: number; name: string; prefix: string; scopes: ApiKeyScope[] };

/** The refusal counters of one client address (rate-limit rows: the first write of a refused call). */
const refusalKey = (actor: Actor) => `api-v1-refused:ip:${actor.clientKey}`;

/**
 * A refused /api/v1 call (no key, malformed, unknown, revoked, or its organisation deactivated): counted per
 * client address before anything else is written, 429 beyond 30 a minute; refusals are audited sparsely
 * (the 1st, 10th, 100th… in a row of an address).
 */
async function refuseCall(deps: Deps, actor: Actor, reason: string, now: Date): Promise<never> {
  const limit = await deps.limits.hit(refusalKey(actor), API_KEY_LIMITS.refusalsPerMinutePerIp, MINUTE_MS, now);
  // A counter that never lets through: its `refused` is how many refusals this address had in a row (an hour).
  const seen = await deps.limits.hit(`api-v1-unauthorised:ip:${actor.clientKey}`, 0, HOUR_MS, now);
  if (auditsRefusal(seen.refused)) {
    await deps.audit.record({
      ...auditActor(actor),
      action: AUDIT_ACTIONS.apiRefused,
      outcome: "denied",
      detail: { reason: limit.allowed ? reason : "rate-limited", refused: seen.refused },
    });
  }
  if (!limit.allowed) throw apiKeysErrors.tooManyRefusals(limit.retryAfterSeconds);
  throw reason === "no key" ? apiKeysErrors.missingKey() : apiKeysErrors.invalidKey();
}

/**
 * The check of every /api/v1 call: `Authorization: Bearer cpk_…` (nothing else is read: no cookie), the key
 * found by its prefix and compared in constant time, usable (not revoked, creator and organisation active),
 * within 600 calls a minute, holding `scope`. Its use is recorded: `lastUsedAt` at most every minute, and an
 * audit event per kind (scope) at most every hour, not one per call.
 */
export async function authenticate(
  deps: Deps,
  actor: Actor,
  input: { authorization: string | undefined; scope: ApiKeyScope },
): Promise<ApiKeyCaller> {
  const now = deps.clock.now();
  const presented = bearerCredential(input.authorization);
  if (!presented) return refuseCall(deps, actor, "no key", now);
  const prefix = bearerLookup(API_KEY_BEARER, presented);
  if (prefix === null) return refuseCall(deps, actor, "malformed key", now);
  // A key seen before: read and its hit counted in one statement (every /api/v1 call pays one round trip less).
  const known = knownKeys.get(deps)?.get(prefix);
  if (known) {
    const pending = { known, prefix, presented, scope: input.scope };
    return (await authenticateAnd(deps, actor, pending, KEY_ALONE, () => ({}))).key;
  }
  const row = await repo.findPresentedKey(deps.db, prefix);
  const caller = await admit(deps, actor, {
    row,
    presented,
    scope: input.scope,
    now,
    limit: (id) => deps.limits.hit(limitKey(id), API_KEY_LIMITS.requestsPerMinute, MINUTE_MS, now),
  });
  rememberKey(deps, prefix, caller);
  return caller;
}

const limitKey = (keyId: number) => `api-v1:key:${keyId}`;

/** The key's own statement with no work of a route: the key read and its rate-limit hit, one round trip. */
const KEY_ALONE = repo.keyedStatement("api_key_alone", sql`null`);

/**
 * The rest of the check once the key's row was read: the hash compared in constant time, the key usable,
 * its rate limit (`limit`: the hit, made here or already in the row's statement), the scope, and its use
 * recorded.
 */
async function admit(
  deps: Deps,
  actor: Actor,
  p: {
    row: repo.PresentedKey | null;
    presented: string;
    /** the presented key's hash, when computed already */
    presentedHash?: string;
    scope: ApiKeyScope;
    now: Date;
    limit: (keyId: number) => Promise<LimitResult>;
  },
): Promise<ApiKeyCaller> {
  const { row, now } = p;
  const equal =
    verifyBearer(deps.config.appSecret, API_KEY_BEARER, p.presented, row?.key_hash, {
      presentedHash: p.presentedHash,
    }) !== null;
  if (!row || !equal) return refuseCall(deps, actor, "unknown key", now);
  if (!row.usable) return refuseCall(deps, actor, "revoked key", now);

  const limit = await p.limit(row.id);
  const audit = {
    ...auditActor(actor),
    organisationId: row.organisation_id,
    target: String(row.id),
    action: AUDIT_ACTIONS.useApiKey,
  };
  if (!limit.allowed) {
    if (auditsRefusal(limit.refused)) {
      await deps.audit.record({
        ...audit,
        outcome: "denied",
        detail: { reason: "rate-limited", refused: limit.refused, name: row.name, prefix: row.prefix },
      });
    }
    throw apiKeysErrors.tooManyRequests(limit.retryAfterSeconds);
  }
  if (!row.scopes.includes(p.scope)) {
    const seen = await deps.limits.hit(`api-v1-scope:key:${row.id}:${p.scope}`, 0, HOUR_MS, now);
    if (auditsRefusal(seen.refused)) {
      await deps.audit.record({
        ...audit,
        outcome: "denied",
        detail: {
          reason: "missing scope",
          scope: p.scope,
          refused: seen.refused,
          name: row.name,
          prefix: row.prefix,
        },
      });
    }
    throw apiKeysErrors.missingScope(p.scope);
  }

  const previous = row.use_audited[p.scope] ?? null;
  const auditDue = previous === null || now.getTime() - Date.parse(previous) >= API_KEY_LIMITS.useAuditEveryMs;
  const touchDue = !row.last_used_at || now.getTime() - row.last_used_at.getTime() >= API_KEY_LIMITS.touchEveryMs;
  if (auditDue || touchDue) {
    const audits = await repo.recordUse(deps.db, {
      id: row.id,
      now,
      auditKind: auditDue ? p.scope : null,
      previousAudit: previous,
    });
    if (audits) {
      await deps.audit.record({
        ...audit,
        outcome: "success",
        detail: { kind: p.scope, name: row.name, prefix: row.prefix, auditedEvery: "hour" },
      });
    }
  }
  return {
    id: row.id,
    organisationId: row.organisation_id,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes,
  };
}

// ---- the hot routes' one statement ----

/** What a key's prefix names for good (a key never changes organisation): its id and its organisation. */
type KnownKey = { id: number; organisationId: number };

/**
 * Each app's prefixes seen in a successful check, to their key's id and organisation. Nothing that can change
 * is kept (revocation, the creator's or the organisation's deactivation, the scopes): every request still
 * reads the key in its one statement, so a revoked key stops at once in every process. Bounded: the oldest
 * entry goes first.
 */
const knownKeys = new WeakMap<object, Map<string, KnownKey>>();
const KNOWN_KEYS_MAX = 10_000;

function rememberKey(deps: Deps, prefix: string, key: KnownKey) {
  const known = knownKeys.get(deps) ?? new Map<string, KnownKey>();
  knownKeys.set(deps, known);
  if (known.has(prefix)) return;
  if (known.size >= KNOWN_KEYS_MAX) known.delete(known.keys().next().value as string);
  known.set(prefix, { id: key.id, organisationId: key.organisationId });
}

/**
 * The check of a hot route in onRequest: a key seen before is left for the route's one statement
 * (`authenticateAnd`, after the body was read: its refusals then come after the body's 400); any other
 * request is checked at once, as `authenticate` does.
 */
export type PendingKey =
  | { checked: ApiKeyCaller }
  | { known: KnownKey; prefix: string; presented: string; scope: ApiKeyScope };

export async function authenticateLater(
  deps: Deps,
  actor: Actor,
  input: { authorization: string | undefined; scope: ApiKeyScope },
): Promise<PendingKey> {
  const presented = bearerCredential(input.authorization);
  const prefix = bearerLookup(API_KEY_BEARER, presented);
  const known = prefix === null ? undefined : knownKeys.get(deps)?.get(prefix);
  if (presented && prefix !== null && known) return { known, prefix, presented, scope: input.scope };
  return { checked: await authenticate(deps, actor, input) };
}

/**
 * A hot route's key check and its read in one round trip: `statement` (repository `keyedStatement`, built once)
 * evaluates the route's work, with the placeholders `values(key)` fills, in the key's own statement after the
 * key's rate-limit hit let it through; the refusals are `authenticate`'s. A key checked already in onRequest
 * runs the work alone.
 */
export async function authenticateAnd<T>(
  deps: Deps,
  actor: Actor,
  pending: PendingKey,
  statement: repo.KeyedStatement,
  values: (key: KnownKey) => Record<string, unknown>,
): Promise<{ key: ApiKeyCaller; value: T }> {
  if ("checked" in pending) {
    const rows = await deps.db.run<{ value: T }>(statement.alone, values(pending.checked));
    return { key: pending.checked, value: rows[0]?.value as T };
  }
  const now = deps.clock.now();
  const { known, prefix, presented } = pending;
  const hash = bearerHash(deps.config.appSecret, API_KEY_BEARER, presented);
  const filled: Record<string, unknown> = { ...values(known), prefix, id: known.id, hash };
  statement.fillHit(filled, hitValues(limitKey(known.id), API_KEY_LIMITS.requestsPerMinute, MINUTE_MS, now));
  const [row = null] = await deps.db.run<repo.PresentedKeyAnd>(statement.withKey, filled);
  if (!row) knownKeys.get(deps)?.delete(prefix);
  const key = await admit(deps, actor, {
    row,
    presented,
    presentedHash: hash,
    scope: pending.scope,
    now,
    // The statement's own hit (`admit` reaches this only for a usable key whose hash matched: it counted one).
    limit: async (keyId) =>
      row?.allowed === null || row?.allowed === undefined
        ? deps.limits.hit(limitKey(keyId), API_KEY_LIMITS.requestsPerMinute, MINUTE_MS, now)
        : row.allowed
          ? { allowed: true, retryAfterSeconds: 0, refused: 0 }
          : {
              allowed: false,
              retryAfterSeconds: retryAfterSeconds(row.oldest, MINUTE_MS, now),
              refused: Number(row.refused ?? 0),
            },
  });
  return { key, value: row?.work as T };
}
