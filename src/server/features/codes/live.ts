import { PassThrough } from "node:stream";
import { StreamsPerUser } from "@server/lib/streams-per-user";
import type { CodeStatus } from "@shared/codes";
import fp from "fastify-plugin";
import { CODE_EVENTS_CHANNEL } from "./repository";

/** Comment lines that keep proxies from closing an idle stream. */
const HEARTBEAT_MS = 15_000;
/** Open status streams per user: a few tabs, not a flood. */
export const MAX_STREAMS_PER_USER = 5;

/** What a verification's wake-up says of the code: when and on which site it was verified. */
export type Verified = { verifiedAt: string; site: string | null };

/** A watcher is told the verification when the wake-up carried it; otherwise it looks at the code again. */
type Watcher = (verified?: Verified) => void;

/**
 * A verification's wake-up on CODE_EVENTS_CHANNEL: the code's id and what the verification committed, so
 * that a stream shows it without reading the code again (that read waited for one of the pool's
 * connections, busy with look-ups: bench verify-success's live status).
 */
export function verifiedPayload(id: number, verified: Verified): string {
  return JSON.stringify({ id, ...verified });
}

/** A wake-up's id and, for a verification's, what it committed; null for anything else. */
export function parsePayload(payload: string): { id: number; verified?: Verified } | null {
  // a bare id (from a process of an earlier version): look at the code again
  if (/^[0-9]{1,15}$/.test(payload)) return { id: Number(payload) };
  try {
    const p = JSON.parse(payload) as { id?: unknown; verifiedAt?: unknown; site?: unknown };
    if (!Number.isSafeInteger(p.id) || typeof p.verifiedAt !== "string") return null;
    if (Number.isNaN(Date.parse(p.verifiedAt))) return null;
    const site = typeof p.site === "string" ? p.site : null;
    return { id: p.id as number, verified: { verifiedAt: p.verifiedAt, site } };
  } catch {
    return null;
  }
}

/**
 * Live code status for the caller. Every process LISTENs on CODE_EVENTS_CHANNEL; a verification made by
 * any process publishes the id with what it committed, and the streams of this process watching that id
 * show it. After the listening connection was lost, every watched code is looked at again.
 */
export class CodeEvents {
  private readonly watchers = new Map<number, Set<Watcher>>();
  private readonly streams = new StreamsPerUser();

  /** Calls `onChange` whenever code `id` may have changed; returns the way to stop. */
  watch(id: number, onChange: Watcher): () => void {
    const set = this.watchers.get(id) ?? new Set<Watcher>();
    this.watchers.set(id, set);
    set.add(onChange);
    return () => {
      set.delete(onChange);
      if (set.size === 0) this.watchers.delete(id);
    };
  }

  notify(id: number, verified?: Verified) {
    for (const w of this.watchers.get(id) ?? []) w(verified);
  }

  resync() {
    for (const set of this.watchers.values()) for (const w of set) w();
  }

  /** Counts an open stream of a user; null when the user has too many. */
  open(userId: number, end: () => void): (() => void) | null {
    return this.streams.open(userId, MAX_STREAMS_PER_USER, end);
  }

  /** Ends every open stream (the server is stopping; browsers reconnect to another process). */
  endAll() {
    this.streams.endAll();
  }
}

declare module "fastify" {
  interface FastifyInstance {
    codeEvents: CodeEvents;
  }
}

export default fp(
  async (app) => {
    const events = new CodeEvents();
    app.decorate("codeEvents", events);
    let stop = async () => {};
    app.addHook("onReady", async () => {
      stop = await app.deps.notifications.listen(
        CODE_EVENTS_CHANNEL,
        (payload) => {
          const event = parsePayload(payload);
          if (event) events.notify(event.id, event.verified);
        },
        () => events.resync(),
      );
    });
    app.addHook("preClose", async () => {
      events.endAll();
      await stop();
    });
  },
  { name: "code-events", dependencies: ["deps"] },
);

/** One server-sent event. */
function sseEvent(event: string, data: CodeStatus): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * The body of one status stream: `retry`, then the state now; for a live code, `verified` or `expired`
 * as soon as `look` (a fresh read of the code, null once it is gone) finds it changed, woken by the
 * code's notifications and by its expiry; then the end. Null when the user has too many streams open.
 */
export function openStatusStream(
  events: CodeEvents,
  p: { userId: number; first: CodeStatus; msUntilExpiry: number; look: () => Promise<CodeStatus | null> },
): { body: PassThrough; close: () => void } | null {
  const body = new PassThrough();
  body.write("retry: 2000\n\n");
  if (p.first.status !== "live") {
    body.end(sseEvent(p.first.status, p.first));
    return { body, close: () => {} };
  }
  let done = false;
  const cleanups: Array<() => void> = [];
  const close = () => {
    if (done) return;
    done = true;
    for (const cleanup of cleanups) cleanup();
    body.end();
  };
  const release = events.open(p.userId, close);
  if (!release) return null;
  const look = async () => {
    if (done) return;
    const now = await p.look();
    if (done) return;
    if (!now) return close();
    if (now.status !== "live") {
      body.write(sseEvent(now.status, now));
      close();
    }
  };
  const expiry = setTimeout(() => void look(), Math.max(0, p.msUntilExpiry) + 50);
  // The heartbeat also looks again: a wake-up lost between a look-up's commit and its publish (decision
  // 010) shows within a heartbeat, not at the code's expiry.
  const heartbeat = setInterval(() => {
    body.write(": keep-alive\n\n");
    void look();
  }, HEARTBEAT_MS);
  cleanups.push(
    events.watch(p.first.id, (verified) => {
      if (!verified) return void look();
      if (done) return;
      body.write(sseEvent("verified", { ...p.first, status: "verified", ...verified }));
      close();
    }),
    () => clearTimeout(expiry),
    () => clearInterval(heartbeat),
    release,
  );
  body.write(sseEvent("live", p.first));
  // A verification between the first read and the watch would otherwise be missed.
  void look();
  return { body, close };
}
