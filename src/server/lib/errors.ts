import { ERROR_CODES, type ErrorCode } from "@shared/error-codes";

/**
 * An error with a status, a stable machine code (one of `ERROR_CODES`) and a message safe to show; the
 * error handler turns it into `{message, code}`. Each feature names its own in its `errors.ts` as
 * `{ name: () => new HttpError(status, ERROR_CODES.x, message) }`, and nowhere else.
 */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** 429 with `Retry-After` (whole seconds, at least 1). */
export const rateLimited = (message: string, retryAfterSeconds: number) =>
  new HttpError(429, ERROR_CODES.rateLimited, message, {
    "retry-after": String(Math.max(1, Math.ceil(retryAfterSeconds))),
  });
