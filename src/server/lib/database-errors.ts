import { ERROR_CODES } from "@shared/error-codes";
import { MESSAGES } from "@shared/messages";
import { HttpError } from "./errors";

/** What a caller reads while the database cannot be reached. */
export const DATABASE_UNAVAILABLE = {
  message: "The service is temporarily unavailable. Please try again in a moment.",
  code: ERROR_CODES.databaseUnavailable,
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

/** The SQLSTATE of a database error, or of the first error it wraps that has one. */
export function sqlState(err: unknown): string | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

/**
 * Whether the database refused a value a client sent (SQLSTATE class 22, data exception): a NUL in text
 * (22021), `\u0000` in JSON (22P05), text that is no number or date (22P02, 22007), a number out of
 * range (22003)… The request is at fault, so it gets a 400; the error's message, which may quote the
 * value, never reaches a log (see `loggableError`).
 */
export function isRefusedValue(err: unknown): boolean {
  return sqlState(err)?.startsWith("22") === true;
}

/**
 * The 400 of a request the input check or the database refused for its values: the request pipeline's
 * refusal of unstorable text as it is, a data exception as a refused value; null for any other error.
 * Both error handlers (the API's and SCIM's) answer it instead of a 500.
 */
export function refusedInput(err: unknown): HttpError | null {
  if (err instanceof HttpError) return err.code === ERROR_CODES.unstorableText ? err : null;
  if (isRefusedValue(err)) return new HttpError(400, ERROR_CODES.refusedValue, MESSAGES.refusedValue);
  return null;
}

/** Properties of an error worth logging that never hold what a client sent. */
const SAFE_FIELDS = ["code", "statusCode", "severity", "routine", "constraint", "table", "column", "schema"] as const;

/** A message with what it quotes cut out: "invalid input syntax for type integer: \"[redacted]\"". */
const withoutQuoted = (message: string, max = 300) =>
  message
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`/g, '"[redacted]"')
    .replace(/[^\x20-\x7e]/g, "?")
    .slice(0, max);

type LoggedError = { type: string; message: string; stack: string; cause?: LoggedError } & Record<string, unknown>;

/**
 * What the log keeps of an error (pino's `err` serializer, so every `log.error({err})` goes through it):
 * its type, its message with anything quoted cut out, its stack's frames, SQLSTATE and the like, and its
 * causes the same way; never a database driver's query parameters (Drizzle's "Failed query … params:"
 * message and `params`), the `detail` or `where` of a PostgreSQL error ("Key (email)=(…) already exists"),
 * or an `input` a URL parser kept. A client's text therefore never reaches an error line.
 */
export function loggableError(err: unknown, depth = 0): LoggedError {
  if (!(err instanceof Error)) return { type: typeof err, message: "[not an Error]", stack: "" };
  const type = err.constructor?.name || err.name || "Error";
  const { query, params } = err as Error & { query?: unknown; params?: unknown };
  const drizzleQuery = params !== undefined;
  const message = drizzleQuery ? "Failed query" : withoutQuoted(err.message);
  const frames = err.stack?.split("\n").filter((line) => /^\s+at /.test(line)) ?? [];
  const logged: LoggedError = { type, message, stack: [`${type}: ${message}`, ...frames].join("\n") };
  if (drizzleQuery && typeof query === "string") logged.query = withoutQuoted(query, 2000);
  for (const field of SAFE_FIELDS) {
    const value = (err as unknown as Record<string, unknown>)[field];
    if (typeof value === "string" || typeof value === "number") logged[field] = withoutQuoted(String(value));
  }
  if (err.cause !== undefined && depth < 4) logged.cause = loggableError(err.cause, depth + 1);
  return logged;
}
