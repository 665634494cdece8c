import { PassThrough } from "node:stream";
import { StreamsPerUser } from "@server/lib/streams-per-user";
import type { CodeStatus } from "@shared/codes";
import fp from "fastify-plugin";
import { CODE_EVENTS_CHANNEL } from "./repository";

/** Comment lines that keep proxies from closing an idle stream. */
const HEARTBEAT_MS = 15_000;
/** Open status streams per user: a few tabs, not a flood. */
export const MAX_STREAMS_PER_USER = 5;

type Watcher = () => void;

/**
 * Live code status for the caller. Every process LISTENs on CODE_EVENTS_CHANNEL; a verification made by
 * any process notifies the id, and the streams of this process watching that id look at it again.
 * After the listening connection was lost, every watched code is looked at again.
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

  notify(id: number) {
    for (const w of this.watchers.get(id) ?? []) w();
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
          const id = Number(payload);
          if (Number.isSafeInteger(id)) events.notify(id);
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
    events.watch(p.first.id, () => void look()),
    () => clearTimeout(expiry),
    () => clearInterval(heartbeat),
    release,
  );
  body.write(sseEvent("live", p.first));
  // A verification between the first read and the watch would otherwise be missed.
  void look();
  return { body, close };
}
