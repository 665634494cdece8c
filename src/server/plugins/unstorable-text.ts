import { HttpError } from "@server/lib/errors";
import { ERROR_CODES } from "@shared/error-codes";
import { MESSAGES } from "@shared/messages";
import fp from "fastify-plugin";

/** Half of a surrogate pair with no other half (PostgreSQL would store U+FFFD instead). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** Text PostgreSQL cannot store: a NUL (an error), or a lone surrogate (stored changed). */
const unstorable = (text: string) => text.includes("\u0000") || LONE_SURROGATE.test(text);

/**
 * Whether a parsed request part holds such text anywhere: in a string, or an object's key, however deep
 * (walked with a list, not recursion, so a deeply nested body cannot overflow the stack).
 */
export function holdsUnstorableText(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (typeof v === "string") {
      if (unstorable(v)) return true;
    } else if (Array.isArray(v)) {
      pending.push(...v);
    } else if (v !== null && typeof v === "object") {
      for (const [key, inner] of Object.entries(v)) {
        if (unstorable(key)) return true;
        pending.push(inner);
      }
    }
  }
  return false;
}

/** The 400 of a request holding such text; the SCIM API answers it in its own error schema. */
export const unstorableText = () => new HttpError(400, ERROR_CODES.unstorableText, MESSAGES.unstorableText);

/**
 * One check in the request pipeline, for every route: a request whose body, query, path parameters or
 * headers hold a NUL or a lone surrogate gets a 400 before any handler sees it, so that no such value
 * reaches the database (where a NUL is an error and a lone surrogate silently becomes U+FFFD), whatever
 * the route's schema says. It runs after authentication (onRequest, a route's guards) and validation, so
 * a 401 or a schema's own message about a field comes first, and before the route's own preHandlers and
 * its handler.
 */
export default fp(
  async (app) => {
    app.addHook("preHandler", async (request) => {
      if (
        holdsUnstorableText(request.params) ||
        holdsUnstorableText(request.query) ||
        holdsUnstorableText(request.body) ||
        holdsUnstorableText(request.headers)
      ) {
        throw unstorableText();
      }
    });
  },
  { name: "unstorable-text" },
);
