import type { Db } from "@server/db/client";
import { verificationTokens } from "@server/db/schema";
import { hmac, safeEqual } from "@server/lib/crypto";
import { and, eq, gt, lt, sql } from "drizzle-orm";

export type TokenPurpose = "sign-in" | "verify-email" | "reset-password";

/**
 * One mechanism for sign-in codes, e-mail verification and password reset (GUIDE 7): one live token
 * per purpose and target (a new one voids the previous), stored as an HMAC, with expiry and a try count.
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
    const values = {
      purpose,
      target,
      secretHash: this.hash(purpose, secretValue),
      expiresAt: new Date(now.getTime() + lifetimeMs),
      tries: 0,
      createdAt: now,
    };
    await this.db
      .insert(verificationTokens)
      .values(values)
      .onConflictDoUpdate({ target: [verificationTokens.purpose, verificationTokens.target], set: values });
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
    const [row] = await this.db
      .update(verificationTokens)
      .set({ tries: sql`${verificationTokens.tries} + 1` })
      .where(
        and(
          eq(verificationTokens.purpose, purpose),
          eq(verificationTokens.target, target),
          gt(verificationTokens.expiresAt, now),
          lt(verificationTokens.tries, maxTries),
        ),
      )
      .returning({
        id: verificationTokens.id,
        secretHash: verificationTokens.secretHash,
        tries: verificationTokens.tries,
      });
    if (!row) {
      const [exists] = await this.db
        .select({ id: verificationTokens.id })
        .from(verificationTokens)
        .where(and(eq(verificationTokens.purpose, purpose), eq(verificationTokens.target, target)));
      return exists ? "exhausted" : "missing";
    }
    if (safeEqual(row.secretHash, this.hash(purpose, guess))) {
      // Single use: only one of two racing right guesses deletes the row.
      const used = await this.db
        .delete(verificationTokens)
        .where(and(eq(verificationTokens.id, row.id), eq(verificationTokens.secretHash, row.secretHash)))
        .returning({ id: verificationTokens.id });
      return used.length ? "ok" : "missing";
    }
    if (row.tries >= maxTries) {
      await this.db.delete(verificationTokens).where(eq(verificationTokens.id, row.id));
      return "exhausted";
    }
    return "wrong";
  }

  /** Uses up a high-entropy token given alone (reset link); returns its target, or null. */
  async consume(purpose: TokenPurpose, secretValue: string, now: Date): Promise<string | null> {
    const [row] = await this.db
      .delete(verificationTokens)
      .where(
        and(
          eq(verificationTokens.purpose, purpose),
          eq(verificationTokens.secretHash, this.hash(purpose, secretValue)),
          gt(verificationTokens.expiresAt, now),
        ),
      )
      .returning({ target: verificationTokens.target });
    return row?.target ?? null;
  }

  /** Voids the live token of (purpose, target), if any. */
  async revoke(purpose: TokenPurpose, target: string) {
    await this.db
      .delete(verificationTokens)
      .where(and(eq(verificationTokens.purpose, purpose), eq(verificationTokens.target, target)));
  }
}
