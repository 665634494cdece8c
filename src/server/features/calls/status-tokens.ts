import { type Deps, publishAfterCommit } from "@server/context";
import type { Db } from "@server/db/client";
import type { ApiKeyCaller } from "@server/features/api-keys";
import { organisationActiveSql } from "@server/features/organisations";
import { siteAmongSql } from "@server/features/sites";
import { randomToken, sha256 } from "@server/lib/crypto";
import { HttpError } from "@server/lib/errors";
import { siteScope } from "@server/lib/origin";
import {
  CALL_STATUS_LIMITS,
  type CallStatusAnswer,
  type ComponentState,
  STATUS_TOKEN_FORMAT,
  type StatusTokenBody,
} from "@shared/call-status-protocol";
import { ERROR_CODES } from "@shared/error-codes";
import { sql } from "drizzle-orm";
import { customerHash } from "./customer";
import type { CallStatus } from "./service";

/**
 * Status tokens (contract, "Calls": "Tokens and the component's routes"): minted by the organisation's
 * backend for one customer and one origin, `cps_` and 256 random bits, kept only as their SHA-256. A token
 * works while it is neither expired nor revoked, its organisation is active and the key that minted it is
 * not revoked (a key is revoked with its creator's deactivation). Minting the 21st live token of a customer
 * revokes the oldest.
 */

/** The channel a revocation is announced on (payload: the organisation id): every process re-checks its streams. */
export const STATUS_TOKENS_CHANNEL = "call_status_tokens";

export const STATUS_TEXT = {
  originNotVerified:
    "`origin` must be exactly the origin of a page on one of your organisation's verified https sites (scheme, host and port, no path).",
  answerNeedsScope: "A token that may answer checks needs a key with the scope checks:answer.",
  tokenInvalid: "This call-status token is unknown, expired or revoked.",
  wrongOrigin: "This call-status token belongs to another site.",
  cannotAnswer: "This call-status token may not answer checks.",
  tooManyStreams: "Too many open call-status streams. Close another tab first.",
  busy: "The call status is busy. Please try again shortly.",
} as const;

export const statusErrors = {
  originNotVerified: () => new HttpError(400, ERROR_CODES.statusOriginNotVerified, STATUS_TEXT.originNotVerified),
  answerNeedsScope: () => new HttpError(403, ERROR_CODES.apiScopeMissing, STATUS_TEXT.answerNeedsScope),
  tokenInvalid: (headers: Record<string, string> = {}) =>
    new HttpError(401, ERROR_CODES.statusTokenInvalid, STATUS_TEXT.tokenInvalid, headers),
  wrongOrigin: () => new HttpError(403, ERROR_CODES.statusWrongOrigin, STATUS_TEXT.wrongOrigin),
  cannotAnswer: (headers: Record<string, string>) =>
    new HttpError(403, ERROR_CODES.statusCannotAnswer, STATUS_TEXT.cannotAnswer, headers),
  tooManyStreams: (headers: Record<string, string>) =>
    new HttpError(429, ERROR_CODES.rateLimited, STATUS_TEXT.tooManyStreams, {
      ...headers,
      "retry-after": String(CALL_STATUS_LIMITS.retryAfterSeconds),
    }),
  busy: (headers: Record<string, string>) =>
    new HttpError(503, ERROR_CODES.unavailable, STATUS_TEXT.busy, {
      ...headers,
      "retry-after": String(CALL_STATUS_LIMITS.retryAfterSeconds),
    }),
};

/**
 * The origin a token may be minted for, as browsers send it: `https://host[:port]` (plain http only on
 * localhost, as the widget's domain locking allows), whose host is one of the organisation's verified sites
 * or under one. Null otherwise (a path, a default port written out, upper case, CallProof's own origin…).
 */
async function verifiedOrigin(deps: Deps, organisationId: number, origin: string): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return null;
  }
  if (url.origin !== origin) return null;
  const hosts = siteScope(origin, deps.config.publicOrigin);
  if (hosts === "any" || hosts.length === 0) return null;
  const rows = await deps.db.rows<{ ok: boolean }>(sql`
    select ${siteAmongSql(sql`${organisationId}::int`, sql`${hosts.join(",")}::text`)} as ok`);
  return rows[0]?.ok ? url.origin : null;
}

/** `POST /api/v1/customers/status-token` */
export async function mintToken(
  deps: Deps,
  key: ApiKeyCaller,
  body: StatusTokenBody,
): Promise<{ token: string; expiresAt: string }> {
  if (body.answer && !key.scopes.includes("checks:answer")) throw statusErrors.answerNeedsScope();
  const origin = await verifiedOrigin(deps, key.organisationId, body.origin);
  if (!origin) throw statusErrors.originNotVerified();
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + CALL_STATUS_LIMITS.tokenTtlMs);
  const token = `cps_${randomToken(32)}`;
  const hash = customerHash(deps.config.appSecret, key.organisationId, body.customerRef);
  const revoked = await deps.db.transaction(async (tx) => {
    // One minting at a time per customer: the 21st live token always revokes the oldest.
    await tx.execute(sql`select pg_advisory_xact_lock(7341, hashtext(${`${key.organisationId}:${hash}`}::text))`);
    const old = (await tx.execute(sql`
      update call_status_tokens set revoked_at = ${now.toISOString()}::timestamptz
      where id in (
        select id from call_status_tokens
        where organisation_id = ${key.organisationId}::int and customer_hash = ${hash}::text
          and revoked_at is null and expires_at > ${now.toISOString()}::timestamptz
        order by created_at desc, id desc offset ${CALL_STATUS_LIMITS.tokensPerCustomer - 1}::int)
      returning id`)) as unknown as { rows: unknown[] };
    await tx.execute(sql`
      insert into call_status_tokens
        (token_hash, organisation_id, customer_hash, origin, can_answer, api_key_id, created_at, expires_at)
      values (${sha256(token)}::text, ${key.organisationId}::int, ${hash}::text, ${origin}::text,
        ${body.answer === true}::boolean, ${key.id}::int, ${now.toISOString()}::timestamptz,
        ${expiresAt.toISOString()}::timestamptz)`);
    return old.rows.length;
  });
  // After the commit (decision 010): every process's streams of the organisation look at their tokens again.
  if (revoked > 0) publishAfterCommit(deps, STATUS_TOKENS_CHANNEL, [String(key.organisationId)]);
  return { token, expiresAt: expiresAt.toISOString() };
}

/** `DELETE /api/v1/customers/status-tokens`: every token of the customer stops at once (open streams end). */
export async function revokeTokens(deps: Deps, key: ApiKeyCaller, customerRef: string): Promise<number> {
  const now = deps.clock.now().toISOString();
  const hash = customerHash(deps.config.appSecret, key.organisationId, customerRef);
  const rows = await deps.db.rows<{ n: number }>(sql`
    with revoked as (
      update call_status_tokens set revoked_at = ${now}::timestamptz
      where organisation_id = ${key.organisationId}::int and customer_hash = ${hash}::text
        and revoked_at is null and expires_at > ${now}::timestamptz
      returning id
    )
    select (select count(*) from revoked)::int as n`);
  publishAfterCommit(deps, STATUS_TOKENS_CHANNEL, [String(key.organisationId)]);
  return rows[0]?.n ?? 0;
}

/** A presented token as its routes see it. */
export type StatusToken = {
  id: number;
  organisationId: number;
  customerHash: string;
  origin: string;
  canAnswer: boolean;
  expiresAt: Date;
  companyName: string;
  /** not expired, not revoked, organisation active, minting key not revoked */
  usable: boolean;
  /** why it is not usable: "expired" or "revoked" (revoked, key revoked, organisation deactivated) */
  endReason: "expired" | "revoked" | null;
};

type TokenRow = {
  id: number;
  organisation_id: number;
  customer_hash: string;
  origin: string;
  can_answer: boolean;
  expires_at: Date;
  company_name: string;
  expired: boolean;
  revoked: boolean;
};

const tokenColumns = (now: string) => sql`
  t.id, t.organisation_id, t.customer_hash, t.origin, t.can_answer, t.expires_at, o.company_name,
  t.expires_at <= ${now}::timestamptz as expired,
  (t.revoked_at is not null or not ${organisationActiveSql(sql`t.organisation_id`)}
    or (t.api_key_id is not null
      and not exists (select 1 from api_keys k where k.id = t.api_key_id and k.revoked_at is null))) as revoked`;

function toToken(r: TokenRow): StatusToken {
  const endReason = r.revoked ? "revoked" : r.expired ? "expired" : null;
  return {
    id: Number(r.id),
    organisationId: r.organisation_id,
    customerHash: r.customer_hash,
    origin: r.origin,
    canAnswer: r.can_answer,
    expiresAt: new Date(r.expires_at),
    companyName: r.company_name,
    usable: endReason === null,
    endReason,
  };
}

/** The token of an `Authorization: Bearer cps_…` header, usable or not; null when there is none such. */
export async function findToken(db: Db, authorization: string | undefined, now: Date): Promise<StatusToken | null> {
  const presented = /^Bearer +(\S+)\s*$/i.exec(authorization ?? "")?.[1];
  if (!presented || !STATUS_TOKEN_FORMAT.test(presented)) return null;
  const rows = await db.prepared<TokenRow>(
    "call_status_token_find",
    sql`select ${tokenColumns(now.toISOString())}
      from call_status_tokens t join organisations o on o.id = t.organisation_id
      where t.token_hash = ${sha256(presented)}::text`,
  );
  return rows[0] ? toToken(rows[0]) : null;
}

/** The tokens with these ids, as they are now (the streams' re-check: one statement for every open stream). */
export async function findTokensById(db: Db, ids: number[], now: Date): Promise<Map<number, StatusToken>> {
  if (ids.length === 0) return new Map();
  const rows = await db.rows<TokenRow>(sql`
    select ${tokenColumns(now.toISOString())}
    from call_status_tokens t join organisations o on o.id = t.organisation_id
    where t.id = any(string_to_array(${ids.join(",")}::text, ',')::bigint[])`);
  return new Map(rows.map((r) => [Number(r.id), toToken(r)]));
}

/** `POST /api/v1/customers/call-status`'s answer (contract: no check, and only outbound calls are ever here). */
export const toCallStatusAnswer = (s: CallStatus): CallStatusAnswer => ({
  calling: s.calling.map((c) => ({ callId: c.callId, employee: c.employee, startedAt: c.startedAt.toISOString() })),
  lastCallAt: s.lastCallAt?.toISOString() ?? null,
  lastCaller: s.lastCaller,
});

/** The component's view: only outbound calls, and a check only while it waits for this customer's answer. */
export function toComponentState(token: StatusToken, s: CallStatus, now: Date): ComponentState {
  const check = s.check;
  const pending = check && check.status === "pending" && check.expiresAt.getTime() > now.getTime();
  return {
    companyName: token.companyName,
    calling: s.calling.map((c) => ({
      firstName: c.employee.firstName,
      startedAt: c.startedAt.toISOString(),
    })),
    lastCallAt: s.lastCallAt?.toISOString() ?? null,
    check: pending
      ? {
          id: check.id,
          direction: check.direction,
          firstName: check.firstName,
          expiresAt: check.expiresAt.toISOString(),
        }
      : null,
    canAnswer: token.canAnswer,
  };
}
