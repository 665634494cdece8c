import type { Db } from "@server/db/client";
import { hmac, safeEqual } from "@server/lib/crypto";
import type { TokenPurpose } from "./repository";
import * as repo from "./repository";

export type { TokenPurpose };

/**
 * One mechanism for sign-in codes, e-mail verification and password reset: one live token per purpose
 * and target (a new one voids the previous), stored as an HMAC, with expiry and a try count.
 */
export class VerificationTokens {
  constructor(
    private readonly db: Db,
    private readonly secret: string,
  ) {}

  private hash(purpose: TokenPurpose, secretValue: string) {
    return hmac(this.secret, `token:${purpose}`, secretValue);
  }

  /** Stores a new token for (purpose, target), replacing any previous one. */
  async issue(purpose: TokenPurpose, target: string, secretValue: string, now: Date, lifetimeMs: number) {
    await repo.upsertToken(this.db, {
      purpose,
      target,
      secretHash: this.hash(purpose, secretValue),
      expiresAt: new Date(now.getTime() + lifetimeMs),
      createdAt: now,
    });
  }

  /**
   * Checks a guess for (purpose, target) and uses the token up when it is right. Each guess counts as a
   * try, atomically; at `maxTries` wrong guesses the token is void. Returns "ok", "wrong" or "exhausted".
   */
  async attempt(
    purpose: TokenPurpose,
    target: string,
    guess: string,
    now: Date,
    maxTries: number,
  ): Promise<"ok" | "wrong" | "exhausted" | "missing"> {
    const row = await repo.countTokenTry(this.db, purpose, target, now, maxTries);
    if (!row) return (await repo.tokenExists(this.db, purpose, target)) ? "exhausted" : "missing";
    if (safeEqual(row.secretHash, this.hash(purpose, guess))) {
      // Single use: only one of two racing right guesses deletes the row.
      return (await repo.deleteTokenWithHash(this.db, row.id, row.secretHash)) ? "ok" : "missing";
    }
    if (row.tries >= maxTries) {
      await repo.deleteToken(this.db, row.id);
      return "exhausted";
    }
    return "wrong";
  }

  /** Uses up a high-entropy token given alone (reset link); returns its target, or null. */
  consume(purpose: TokenPurpose, secretValue: string, now: Date): Promise<string | null> {
    return repo.takeTokenByHash(this.db, purpose, this.hash(purpose, secretValue), now);
  }

  /** Voids the live token of (purpose, target), if any. */
  revoke(purpose: TokenPurpose, target: string) {
    return repo.deleteTokensOf(this.db, purpose, target);
  }
}
