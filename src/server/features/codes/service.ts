import { type Actor, type Deps, publishAfterCommit, signedIn } from "@server/context";
import { originHost, siteScope } from "@server/features/sites";
import { clientInfo as callerOf, usersErrors } from "@server/features/users";
import { wakeWorkersAfterCommit } from "@server/features/webhooks";
import { hmac } from "@server/lib/crypto";
import { ipNetwork48 } from "@server/lib/ip";
import { retryAfterSeconds } from "@server/lib/rate-limit";
import type { ClientInfo, CodeStatus, GeneratedWords, VerifyAnswer } from "@shared/codes";
import { IDENTITY_CODE } from "@shared/constants";
import { widgetTexts } from "@shared/i18n";
import { DEFAULT_LANGUAGE, type Language } from "@shared/languages";
import { codesErrors } from "./errors";
import { type Verified, verifiedPayload } from "./live";
import * as repo from "./repository";
import { candidateCodes, canonicalCode, drawWords } from "./words";

/** A fresh draw collides with a live code about once in millions of draws; a few tries are plenty. */
const MAX_DRAWS = 5;

/** The stored form of a code: an HMAC under APP_SECRET of its canonical words (its list's words, NFC). */
export function codeHash(secret: string, words: readonly string[]): string {
  return hmac(secret, "identity-code", canonicalCode(words));
}

/**
 * The hashes a typed code may stand for: one per language whose list holds every typed word (without
 * accents, any case, whole or by 4+ leading letters), so at most six, and never a mix of two lists.
 */
export function candidateHashes(secret: string, typed: string): string[] {
  return [...new Set(candidateCodes(typed).map((c) => codeHash(secret, c.words)))];
}

/** The signed-in user's name, company and website, as the widget would name them. */
export function clientInfo(deps: Deps, actor: Actor): Promise<ClientInfo> {
  return callerOf(deps.db, signedIn(actor).id);
}

/**
 * Creates a code for a signed-in user, in the customer's language (English unless told): at most 3 a
 * rolling minute, 60 s, single use, stored only as an HMAC. `draw` picks the words (tests pass their own).
 */
export async function generateWords(
  deps: Deps,
  actor: Actor,
  {
    language = DEFAULT_LANGUAGE,
    draw = drawWords,
    callId = null,
  }: { language?: Language; draw?: (language: Language) => string[]; callId?: string | null } = {},
): Promise<GeneratedWords> {
  const user = signedIn(actor);
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + IDENTITY_CODE.lifetimeMs);
  const limit = {
    key: `codes-generate:user:${user.id}`,
    limit: IDENTITY_CODE.generatePerWindow,
    windowMs: IDENTITY_CODE.generateWindowMs,
  };
  for (let i = 0; i < MAX_DRAWS; i++) {
    const words = draw(language);
    const row = await repo.insertCode(deps.db, {
      limit,
      userId: user.id,
      userEmail: user.email,
      organisationId: user.organisationId,
      codeHash: codeHash(deps.config.appSecret, words),
      now,
      expiresAt,
      ip: actor.ip,
      language,
      callId,
    });
    if (!row.allowed) throw codesErrors.tooManyCodes(retryAfterSeconds(row.oldest, limit.windowMs, now));
    if (!row.organisation_active) throw usersErrors.accountDeactivated();
    if (row.id !== null) return { id: row.id, words, expiresAt: expiresAt.toISOString(), language };
    // The words equal a live code: give back the hit this attempt counted and draw again.
    await deps.limits.release(limit.key, now);
  }
  deps.log.error({ requestId: actor.requestId }, "identity code generation kept colliding with live codes");
  throw codesErrors.generateUnavailable();
}

/**
 * Checks a code typed into a widget on the page of `origin`, in any of the six languages. Unknown,
 * expired, used, deactivated-owner and wrong-site codes, and text that is not three words of one list,
 * all get the same answer, in the widget's `language` (English by default). Fails closed: a database
 * error is a 503, never `verified: true`.
 */
export async function verifyWords(
  deps: Deps,
  actor: Actor,
  input: { words: string; origin: string | undefined; language?: Language },
): Promise<VerifyAnswer> {
  const now = deps.clock.now();
  const texts = widgetTexts(input.language ?? DEFAULT_LANGUAGE);
  const limit = {
    key: `codes-verify:ip:${actor.clientKey}`,
    limit: IDENTITY_CODE.lookupsPerWindow,
    windowMs: IDENTITY_CODE.lookupWindowMs,
  };
  // IPv6: also a budget for the client's /48, which holds 65,536 /64s (issue 18 N12)
  const network = ipNetwork48(actor.ip);
  const networkLimit = network
    ? {
        key: `codes-verify:net:${network}`,
        limit: IDENTITY_CODE.lookupsPerNetworkPerWindow,
        windowMs: IDENTITY_CODE.lookupWindowMs,
      }
    : null;
  const lookUp = {
    // Text that is not three words of one list still counts as a look-up; no candidate matches nothing.
    codeHashes: candidateHashes(deps.config.appSecret, input.words),
    now,
    scope: siteScope(input.origin, deps.config.publicOrigin),
    origin: input.origin ?? null,
    originHost: originHost(input.origin),
    ip: actor.ip,
  };
  let first: repo.LookUpAndVerifyRow;
  try {
    // One statement: counted, audited, and verified when the code is a consumable one.
    first = await repo.lookUpAndVerify(deps.db, { ...lookUp, limit, networkLimit });
  } catch (err) {
    deps.log.error({ err, requestId: actor.requestId }, "identity code look-up failed");
    throw codesErrors.verifyUnavailable(texts.unavailable);
  }
  if (!first.allowed)
    throw codesErrors.tooManyLookups(retryAfterSeconds(first.oldest, limit.windowMs, now), texts.tooMany);
  const row = first.verification;
  if (!row?.verified) return { verified: false, message: texts.notVerified };
  wakeAfterVerify(deps, row, { verifiedAt: now.toISOString(), site: lookUp.originHost });
  return {
    verified: true,
    caller: { fullName: row.full_name ?? "", companyName: row.company_name ?? "", website: row.website ?? "" },
  };
}

/**
 * After a verification committed: the code's id to every process's live-status streams, and the webhook
 * workers when a delivery was queued (decision 010: published after the commit, batched, never in it).
 * A wake-up lost on the way is caught up by the streams' look at expiry and resync, and by the workers' poll.
 */
function wakeAfterVerify(deps: Deps, row: repo.VerifyRow, verified: Verified) {
  const id = row.id;
  if (id !== null) publishAfterCommit(deps, repo.CODE_EVENTS_CHANNEL, [verifiedPayload(id, verified)]);
  if (row.queued > 0) wakeWorkersAfterCommit(deps);
}

/** A code's status as its owner sees it; anybody else's code, or one deleted since, is a 404. */
export async function codeStatus(deps: Deps, actor: Actor, input: { id: number }): Promise<CodeStatus> {
  const row = await repo.findCode(deps.db, input.id, signedIn(actor).id);
  if (!row) throw codesErrors.codeNotFound();
  return statusOf(row, deps.clock.now());
}

export function statusOf(row: repo.CodeStatusRow, now: Date): CodeStatus {
  return {
    id: row.id,
    status: row.used_at ? "verified" : row.expires_at <= now ? "expired" : "live",
    expiresAt: row.expires_at.toISOString(),
    verifiedAt: row.used_at?.toISOString() ?? null,
    site: row.used_at ? row.verified_host : null,
  };
}

/** A code of one organisation's employees as an integration sees it, with its owner; 404 for any other. */
export async function organisationCodeStatus(
  deps: Deps,
  input: { id: number; organisationId: number },
): Promise<CodeStatus & { ownerId: number }> {
  const row = await repo.findOrganisationCode(deps.db, input.id, input.organisationId);
  if (!row) throw codesErrors.codeNotFound();
  return { ...statusOf(row, deps.clock.now()), ownerId: row.user_id };
}
