/** What a caller reads while the database cannot be reached. */
export const DATABASE_UNAVAILABLE = {
  message: "The service is temporarily unavailable. Please try again in a moment.",
  code: "database.unavailable",
} as const;

/** Network errors of a connection that failed, dropped or timed out. */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/** node-postgres's own messages for a connection that is gone or never came. */
const DRIVER_MESSAGES = [
  "Connection terminated",
  "timeout exceeded when trying to connect",
  "Query read timeout",
  "Client has encountered a connection error and is not queryable",
  "Connection ended",
];

/**
 * Whether an error (or any error it wraps) means the database cannot be reached now: a network error,
 * a connection timeout, or PostgreSQL refusing connections (SQLSTATE class 08, shutting down, starting up,
 * too many connections). Such a request gets a 503 and the next one tries a fresh connection.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") {
      if (NETWORK_CODES.has(code)) return true;
      if (/^08...$/.test(code) || ["57P01", "57P02", "57P03", "53300"].includes(code)) return true;
    }
    if (DRIVER_MESSAGES.some((m) => e instanceof Error && e.message.includes(m))) return true;
  }
  return false;
}
