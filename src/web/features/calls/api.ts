import type { CallDirection } from "@shared/calls";
import { ApiError, apiHref, send } from "@web/lib/api";

/** The employee's calls (contract, "Calls"): start, the active one, renew, end, disown, ask the customer. */
export const callsApi = {
  current: (signal?: AbortSignal) => send("getCurrentCall", { signal }),
  start: (customerRef: string, direction: CallDirection) => send("startCall", { body: { customerRef, direction } }),
  renew: (id: string) => send("renewCall", { params: { path: { id } } }),
  end: (id: string) => send("endCall", { params: { path: { id } } }),
  disown: (id: string) => send("disownCall", { params: { path: { id } } }),
  askCustomer: (id: string) => send("requestCustomerCheck", { params: { path: { id } } }),
  /** the call's live events (text/event-stream), read with fetch so that the session cookie applies */
  eventsHref: (id: string) => apiHref("streamCallEvents", { path: { id } }),
};

export type ActiveCall = NonNullable<Awaited<ReturnType<typeof callsApi.current>>>;

/** One server-sent event: its name ("message" when unnamed) and its data, parsed as JSON. */
export type StreamEvent = { event: string; data: unknown };

/**
 * Reads a text/event-stream over fetch (same-origin cookies), calling `onEvent` for each event until the
 * stream ends (resolves) or fails (throws an ApiError for an answer that is not a stream).
 */
export async function readEventStream(
  href: string,
  signal: AbortSignal,
  onEvent: (event: StreamEvent) => void,
): Promise<void> {
  let response: Response;
  try {
    response = await fetch(href, {
      credentials: "same-origin",
      headers: { Accept: "text/event-stream" },
      cache: "no-store",
      signal,
    });
  } catch (error) {
    if (signal.aborted) throw error;
    throw new ApiError(0, undefined, undefined);
  }
  if (!response.ok || !response.body) throw new ApiError(response.status, undefined, undefined);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    for (let end = blockEnd(buffer); end; end = blockEnd(buffer)) {
      const block = buffer.slice(0, end.at);
      buffer = buffer.slice(end.at + end.length);
      const parsed = parseBlock(block);
      if (parsed) onEvent(parsed);
    }
  }
}

function blockEnd(buffer: string): { at: number; length: number } | null {
  const match = /\r?\n\r?\n/.exec(buffer);
  return match ? { at: match.index, length: match[0].length } : null;
}

/** One event block: `event:` and `data:` lines (comments and ids ignored); null for a comment-only block. */
function parseBlock(block: string): StreamEvent | null {
  let event = "message";
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (!line || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
  }
  if (data.length === 0) return null;
  try {
    return { event, data: JSON.parse(data.join("\n")) };
  } catch {
    return null;
  }
}
