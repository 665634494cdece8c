import { hmac } from "@server/lib/crypto";
import type { LimitResult, RateLimiter } from "@server/lib/rate-limit";
import { SIGN_IN } from "@shared/constants";

type Limit = { key: string; limit: number; windowMs: number };

/** What the sign-in limits need: the counters, and APP_SECRET to key an account's counters by. */
export type LimitDeps = { limits: RateLimiter; config: { appSecret: string } };

/**
 * An account's counters are keyed by an HMAC-SHA256 of its e-mail under APP_SECRET, never the e-mail: the
 * rate_limits table holds no address (docs/privacy.md), and without APP_SECRET a key cannot be tied to one.
 */
const account = (deps: LimitDeps, email: string) => hmac(deps.config.appSecret, "rate-limit-email", email);

const passwordLimits = (accountKey: string, clientKey: string): Limit[] => [
  { key: `signin-fail:acct:${accountKey}`, limit: SIGN_IN.maxFailuresPerAccount, windowMs: SIGN_IN.failureWindowMs },
  { key: `signin-fail:ip:${clientKey}`, limit: SIGN_IN.maxFailuresPerIp, windowMs: SIGN_IN.failureWindowMs },
];

const codeLimits = (accountKey: string, clientKey: string): Limit[] => [
  {
    key: `signin-code-fail:acct:${accountKey}`,
    limit: SIGN_IN.maxWrongCodesPerAccount,
    windowMs: SIGN_IN.wrongCodeAccountWindowMs,
  },
  { key: `signin-code-fail:ip:${clientKey}`, limit: SIGN_IN.maxWrongCodesPerIp, windowMs: SIGN_IN.wrongCodeIpWindowMs },
];

export type Reservation =
  | { allowed: true /** the attempt succeeded: it does not count */; giveBack(): Promise<void> }
  | { allowed: false; retryAfterSeconds: number /** refusals in a row on the fullest key */; refused: number };

/**
 * Counts an attempt on every key *before* it is checked, so parallel attempts cannot get past the
 * limit: the database lets at most `limit` hits into each window. When any key is full the attempt
 * is refused and the hits it made on the other keys are given back.
 */
async function reserve(limits: RateLimiter, keys: Limit[], now: Date): Promise<Reservation> {
  const results = await Promise.all(keys.map((k) => limits.hit(k.key, k.limit, k.windowMs, now)));
  const giveBack = async () => {
    await Promise.all(keys.filter((_, i) => results[i]?.allowed).map((k) => limits.release(k.key, now)));
  };
  const refused = results.filter((r) => !r.allowed);
  if (refused.length === 0) return { allowed: true, giveBack };
  await giveBack();
  return {
    allowed: false,
    retryAfterSeconds: Math.max(...refused.map((r) => r.retryAfterSeconds)),
    refused: Math.max(...refused.map((r) => r.refused)),
  };
}

/** A password attempt: at most 10 failures per account and 30 per IP in 15 minutes. */
export function reservePasswordAttempt(deps: LimitDeps, email: string, clientKey: string, now: Date) {
  return reserve(deps.limits, passwordLimits(account(deps, email), clientKey), now);
}

/**
 * A sign-in code attempt: at most 10 wrong codes per account an hour and 30 per IP in 15 minutes. A wrong
 * code counts against the account only while a code that its right password asked for is pending
 * (`codePending`): without one, anybody could lock the owner's password sign-in by typing made-up codes
 * for their e-mail, so it counts against the IP only.
 */
export async function reserveCodeAttempt(
  deps: LimitDeps,
  email: string,
  clientKey: string,
  now: Date,
  codePending: boolean,
): Promise<Reservation> {
  const { limits } = deps;
  const [acct, ip] = codeLimits(account(deps, email), clientKey) as [Limit, Limit];
  if (codePending) return reserve(limits, [acct, ip], now);
  // Not counted against the account, but an account its own wrong codes blocked stays blocked.
  const blocked = await limits.peek(acct.key, acct.limit, acct.windowMs, now);
  if (!blocked.allowed) return { allowed: false, retryAfterSeconds: blocked.retryAfterSeconds, refused: 1 };
  return reserve(limits, [ip], now);
}

/** Whether wrong codes have used up the account's or the IP's allowance (then the password step refuses too). */
export async function codeAttemptsBlocked(
  deps: LimitDeps,
  email: string,
  clientKey: string,
  now: Date,
): Promise<LimitResult | null> {
  const results = await Promise.all(
    codeLimits(account(deps, email), clientKey).map((k) => deps.limits.peek(k.key, k.limit, k.windowMs, now)),
  );
  const refused = results.filter((r) => !r.allowed);
  if (refused.length === 0) return null;
  return { allowed: false, retryAfterSeconds: Math.max(...refused.map((r) => r.retryAfterSeconds)), refused: 0 };
}

/** A completed sign-in or a password reset clears the account's failures (the IP's stay). */
export async function forgetAccountFailures(deps: LimitDeps, email: string) {
  const key = account(deps, email);
  await Promise.all([deps.limits.reset(`signin-fail:acct:${key}`), deps.limits.reset(`signin-code-fail:acct:${key}`)]);
}
