import { ERROR_CODES } from "@shared/error-codes";

/**
 * An error with a status, a stable machine code and a message safe to show; the error handler turns
 * it into `{message, code}`. Each feature declares its own in its `errors.ts`.
 */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
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
