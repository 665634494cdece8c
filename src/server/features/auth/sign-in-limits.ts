import type { LimitResult, RateLimiter } from "@server/lib/rate-limit";
import { SIGN_IN } from "@shared/constants";

type Limit = { key: string; limit: number; windowMs: number };

const passwordLimits = (email: string, clientKey: string): Limit[] => [
  { key: `signin-fail:acct:${email}`, limit: SIGN_IN.maxFailuresPerAccount, windowMs: SIGN_IN.failureWindowMs },
  { key: `signin-fail:ip:${clientKey}`, limit: SIGN_IN.maxFailuresPerIp, windowMs: SIGN_IN.failureWindowMs },
];

const codeLimits = (email: string, clientKey: string): Limit[] => [
  {
    key: `signin-code-fail:acct:${email}`,
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
export function reservePasswordAttempt(limits: RateLimiter, email: string, clientKey: string, now: Date) {
  return reserve(limits, passwordLimits(email, clientKey), now);
}

/**
 * A sign-in code attempt: at most 10 wrong codes per account an hour and 30 per IP in 15 minutes. A wrong
 * code counts against the account only while a code that its right password asked for is pending
 * (`codePending`): without one, anybody could lock the owner's password sign-in by typing made-up codes
 * for their e-mail, so it counts against the IP only.
 */
export async function reserveCodeAttempt(
  limits: RateLimiter,
  email: string,
  clientKey: string,
  now: Date,
  codePending: boolean,
): Promise<Reservation> {
  const [account, ip] = codeLimits(email, clientKey) as [Limit, Limit];
  if (codePending) return reserve(limits, [account, ip], now);
  // Not counted against the account, but an account its own wrong codes blocked stays blocked.
  const blocked = await limits.peek(account.key, account.limit, account.windowMs, now);
  if (!blocked.allowed) return { allowed: false, retryAfterSeconds: blocked.retryAfterSeconds, refused: 1 };
  return reserve(limits, [ip], now);
}

/** Whether wrong codes have used up the account's or the IP's allowance (then the password step refuses too). */
export async function codeAttemptsBlocked(
  limits: RateLimiter,
  email: string,
  clientKey: string,
  now: Date,
): Promise<LimitResult | null> {
  const results = await Promise.all(
    codeLimits(email, clientKey).map((k) => limits.peek(k.key, k.limit, k.windowMs, now)),
  );
  const refused = results.filter((r) => !r.allowed);
  if (refused.length === 0) return null;
  return { allowed: false, retryAfterSeconds: Math.max(...refused.map((r) => r.retryAfterSeconds)), refused: 0 };
}

/** A completed sign-in or a password reset clears the account's failures (the IP's stay). */
export async function forgetAccountFailures(limits: RateLimiter, email: string) {
  await Promise.all([limits.reset(`signin-fail:acct:${email}`), limits.reset(`signin-code-fail:acct:${email}`)]);
}
