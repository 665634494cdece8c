import type { CodeStatus } from "@shared/codes";
import type { FastifyReply } from "fastify";
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
  private readonly streams = new Set<() => void>();
  private readonly perUser = new Map<number, number>();

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

  /** Counts an open stream of a user; false when the user has too many. */
  open(userId: number, end: () => void): (() => void) | null {
    const n = this.perUser.get(userId) ?? 0;
    if (n >= MAX_STREAMS_PER_USER) return null;
    this.perUser.set(userId, n + 1);
    this.streams.add(end);
    return () => {
      this.streams.delete(end);
      const left = (this.perUser.get(userId) ?? 1) - 1;
      if (left > 0) this.perUser.set(userId, left);
      else this.perUser.delete(userId);
    };
  }

  /** Ends every open stream (the server is stopping; browsers reconnect to another process). */
  endAll() {
    for (const end of [...this.streams]) end();
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
export function sseEvent(event: string, data: CodeStatus): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The headers of an event stream: never cached or buffered by a proxy. */
export function sseHeaders(reply: FastifyReply) {
  reply
    .header("content-type", "text/event-stream; charset=utf-8")
    .header("cache-control", "no-store")
    .header("x-accel-buffering", "no");
}

export { HEARTBEAT_MS };
