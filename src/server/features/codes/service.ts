import { hmac } from "@server/lib/crypto";
import { HttpError, tooManyRequests } from "@server/lib/errors";
import { retryAfterSeconds } from "@server/lib/rate-limit";
import type { App, SessionUser } from "@server/types";
import { CODES_TEXT, type GeneratedWords, type VerifyAnswer } from "@shared/codes";
import { IDENTITY_CODE } from "@shared/constants";
import { MESSAGES } from "@shared/messages";
import type { FastifyRequest } from "fastify";
import { consumeCode, insertCode } from "./repository";
import { siteScope } from "./site";
import { canonicalCode, drawWords, parseWords } from "./words";

/** A fresh draw collides with a live code about once in millions of draws; a few tries are plenty. */
const MAX_DRAWS = 5;

/** The stored form of a code: an HMAC under APP_SECRET of its canonical words. */
export function codeHash(secret: string, words: readonly string[]): string {
  return hmac(secret, "identity-code", canonicalCode(words));
}

/** Creates a code for a signed-in user: at most 3 a rolling minute, 60 s, single use, stored only as an HMAC. */
export async function generateWords(
  app: App,
  request: FastifyRequest,
  user: SessionUser,
  draw: () => string[] = drawWords,
): Promise<GeneratedWords> {
  const now = app.clock.now();
  const expiresAt = new Date(now.getTime() + IDENTITY_CODE.lifetimeMs);
  const limit = {
    key: `codes-generate:user:${user.id}`,
    limit: IDENTITY_CODE.generatePerWindow,
    windowMs: IDENTITY_CODE.generateWindowMs,
  };
  for (let i = 0; i < MAX_DRAWS; i++) {
    const words = draw();
    const row = await insertCode(app.db, app.dbKind, {
      limit,
      userId: user.id,
      userEmail: user.email,
      organisationId: user.organisationId,
      codeHash: codeHash(app.config.appSecret, words),
      now,
      expiresAt,
      ip: request.ip,
    });
    if (!row.allowed) throw tooManyRequests(MESSAGES.tooManyCodes, retryAfterSeconds(row.oldest, limit.windowMs, now));
    if (row.id !== null) return { words, expiresAt: expiresAt.toISOString() };
    // The words equal a live code: give back the hit this attempt counted and draw again.
    await app.limits.release(limit.key, now);
  }
  request.log.error("identity code generation kept colliding with live codes");
  throw new HttpError(503, CODES_TEXT.generateUnavailable);
}

/**
 * Checks a code typed into a widget. Unknown, expired, used, deactivated-owner and wrong-site codes,
 * and text that is not three list words, all get the same answer. Fails closed: a database error is a
 * 503, never `verified: true`.
 */
export async function verifyWords(app: App, request: FastifyRequest, typed: string): Promise<VerifyAnswer> {
  const now = app.clock.now();
  const origin = request.headers.origin;
  const words = parseWords(typed);
  const limit = {
    key: `codes-verify:ip:${request.clientKey}`,
    limit: IDENTITY_CODE.lookupsPerWindow,
    windowMs: IDENTITY_CODE.lookupWindowMs,
  };
  let row: Awaited<ReturnType<typeof consumeCode>>;
  try {
    row = await consumeCode(app.db, app.dbKind, {
      limit,
      // Text that is not three list words still counts as a look-up; "" matches no stored hash.
      codeHash: words ? codeHash(app.config.appSecret, words) : "",
      now,
      scope: siteScope(origin, app.config.publicOrigin),
      origin: origin ?? null,
      ip: request.ip,
    });
  } catch (err) {
    request.log.error({ err }, "identity code look-up failed");
    throw new HttpError(503, CODES_TEXT.verifyUnavailable);
  }
  if (!row.allowed)
    throw tooManyRequests(CODES_TEXT.tooManyLookups, retryAfterSeconds(row.oldest, limit.windowMs, now));
  if (!row.verified) return { verified: false, message: MESSAGES.codeNotVerified };
  return {
    verified: true,
    caller: { fullName: row.full_name ?? "", companyName: row.company_name ?? "", website: row.website ?? "" },
  };
}
