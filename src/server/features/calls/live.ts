import { PassThrough } from "node:stream";
import { StreamsPerUser } from "@server/lib/streams-per-user";
import fp from "fastify-plugin";
import { CALL_EVENTS_CHANNEL } from "./repository";

type Listener = () => void;

/**
 * Live changes of calls and checks, for this process's streams (the employee's call panel, the customer's
 * component). Every process LISTENs on CALL_EVENTS_CHANNEL; each change of a call or check (start, end,
 * expiry, a check asked, answered or expired) notifies `<organisationId>:<customerHash>:<callId>`, and the
 * subscribers of that customer and of that call are called: they read the state again. After the listening
 * connection was lost and found again, every subscriber is called. Listeners are never given the state
 * itself (and never the customerRef): they read it from the database.
 */
export class CallEvents {
  /** counts notifications and resyncs: the calls job looks again when it changed */
  generation = 0;
  private readonly customers = new Map<string, Set<Listener>>();
  private readonly calls = new Map<string, Set<Listener>>();

  /** Calls `listener` whenever the customer's calls or checks with the organisation may have changed. */
  subscribeCustomer(organisationId: number, customerHash: string, listener: Listener): () => void {
    return add(this.customers, `${organisationId}:${customerHash}`, listener);
  }

  /** Calls `listener` whenever the call or one of its checks may have changed. */
  subscribeCall(callId: string, listener: Listener): () => void {
    return add(this.calls, callId, listener);
  }

  /** A notification's payload: `<organisationId>:<customerHash>:<callId>`. */
  notify(payload: string) {
    this.generation++;
    const [organisationId, customerHash, callId] = payload.split(":");
    if (!organisationId || !customerHash) return;
    const called = new Set<Listener>();
    const call = (set: Set<Listener> | undefined) => {
      for (const l of [...(set ?? [])]) {
        if (called.has(l)) continue;
        called.add(l);
        safely(l);
      }
    };
    call(this.customers.get(`${organisationId}:${customerHash}`));
    if (callId) call(this.calls.get(callId));
  }

  /** After a lost LISTEN connection: every subscriber reads its state again. */
  resync() {
    this.generation++;
    for (const set of [...this.customers.values(), ...this.calls.values()]) for (const l of [...set]) safely(l);
  }
}

function add(map: Map<string, Set<Listener>>, key: string, listener: Listener): () => void {
  const set = map.get(key) ?? new Set<Listener>();
  map.set(key, set);
  set.add(listener);
  return () => {
    set.delete(listener);
    if (set.size === 0 && map.get(key) === set) map.delete(key);
  };
}

function safely(listener: Listener) {
  try {
    listener();
  } catch {
    // a listener's own failure is its own: the others still hear
  }
}

declare module "fastify" {
  interface FastifyInstance {
    /** this app's hub of call events, fed by its own LISTEN connection (two apps in one process: one each) */
    callEvents: CallEvents;
    callStreams: StreamsPerUser;
  }
}

/** The plugin that gives the app its `callEvents`, fed by its LISTEN on the call events channel. */
export const callEventsPlugin = fp(
  async (app) => {
    const callEvents = new CallEvents();
    app.decorate("callEvents", callEvents);
    const streams = new StreamsPerUser();
    app.decorate("callStreams", streams);
    let stop = async () => {};
    app.addHook("onReady", async () => {
      stop = await app.deps.notifications.listen(
        CALL_EVENTS_CHANNEL,
        (payload) => callEvents.notify(payload),
        () => callEvents.resync(),
      );
    });
    app.addHook("preClose", async () => {
      streams.endAll();
      await stop();
    });
  },
  { name: "call-events", dependencies: ["deps"] },
);

/** One server-sent event. */
const sseEvent = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** Comment lines that keep proxies from closing an idle stream (and a fresh read, each time). */
const HEARTBEAT_MS = 15_000;

export type CallStreamState = {
  /** the call has ended (or is past its endsAt) */
  ended: boolean;
  check: unknown | null;
  colleagues: number;
};

/**
 * The body of the employee's call stream: `retry`, then the state now (`colleague`, and `check` when the
 * call has one), then every change (`check`, `colleague`) as `read` (a fresh read from the database) finds
 * it, woken by the call's and the customer's notifications and at every heartbeat; `call` {status: "ended"}
 * and the end once the call ends. Null when the user has too many streams open.
 */
export function openCallStream(
  hub: { events: CallEvents; streams: StreamsPerUser },
  p: {
    userId: number;
    max: number;
    callId: string;
    organisationId: number;
    customerHash: string;
    read: () => Promise<CallStreamState | null>;
  },
): { body: PassThrough; close: () => void } | null {
  const body = new PassThrough();
  let done = false;
  const cleanups: Array<() => void> = [];
  const close = () => {
    if (done) return;
    done = true;
    for (const cleanup of cleanups) cleanup();
    body.end();
  };
  const release = hub.streams.open(p.userId, p.max, close);
  if (!release) return null;
  body.write("retry: 2000\n\n");
  let lastCheck: string | null = null;
  let lastColleagues: number | null = null;
  let running = false;
  let again = false;
  const look = async () => {
    if (done) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        const state = await p.read().catch(() => undefined);
        if (done || state === undefined) break;
        if (state === null) {
          close();
          break;
        }
        const check = state.check === null ? null : JSON.stringify(state.check);
        if (check !== null && check !== lastCheck) body.write(sseEvent("check", state.check));
        lastCheck = check;
        if (state.colleagues !== lastColleagues) body.write(sseEvent("colleague", { count: state.colleagues }));
        lastColleagues = state.colleagues;
        if (state.ended) {
          body.write(sseEvent("call", { status: "ended" }));
          close();
          break;
        }
      } while (again && !done);
    } finally {
      running = false;
    }
  };
  // The heartbeat also looks again: a wake-up lost between a change's commit and its publish (decision 010)
  // shows at the next one.
  const heartbeat = setInterval(() => {
    body.write(": keep-alive\n\n");
    void look();
  }, HEARTBEAT_MS);
  cleanups.push(
    hub.events.subscribeCall(p.callId, () => void look()),
    hub.events.subscribeCustomer(p.organisationId, p.customerHash, () => void look()),
    () => clearInterval(heartbeat),
    release,
  );
  void look();
  return { body, close };
}
