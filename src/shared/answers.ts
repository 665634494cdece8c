import { z } from "zod";
import { ERROR_CODES } from "./error-codes";

/** An answer that is only a text for the user. */
export const messageAnswer = z.object({ message: z.string() });

/**
 * Every error answer: a text for people and a stable machine code, one of error-codes.ts (so the OpenAPI
 * document, and the web app's types generated from it, list the codes a client may branch on).
 */
export const errorAnswer = z.object({ message: z.string(), code: z.enum(ERROR_CODES) });

/**
 * An answer that is not JSON, for the OpenAPI document: `text/event-stream` (a code's live status) or
 * `text/csv` (an export). The handler sends the stream or text itself; the schema only describes it.
 */
export function textAnswer(mediaType: "text/event-stream" | "text/csv", description: string, example: string) {
  return { description, content: { [mediaType]: { schema: z.string().meta({ examples: [example] }) } } };
}

/** The live status of a code: `event: live|verified|expired`, `data:` the code's status as JSON. */
export const codeEventsAnswer = textAnswer(
  "text/event-stream",
  "Server-sent events: the state now (`live`, or `verified`/`expired` and the end), then `verified` the moment the code is verified, or `expired` at expiry; each event's data is the code's status as JSON",
  'retry: 2000\n\nevent: live\ndata: {"id":4211,"status":"live","expiresAt":"2026-11-25T09:30:00.000Z","verifiedAt":null,"site":null}\n\n',
);
