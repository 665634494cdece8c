import { PassThrough } from "node:stream";
import { CALL_STATUS_LIMITS, type ComponentEnd, type ComponentState } from "@shared/call-status-protocol";

/**
 * The call-status component's streams in this process: counted per token, per client address and in all
 * (contract: at most 3 per token, 20 per address, a per-process cap), each ended at its token's expiry or
 * revocation, woken by the customer's changes and re-checked by the heartbeat.
 */

/** What a stream needs to look again: the token (usable or not) and the state now, or null when the token ended. */
export type Look = () => Promise<{ state: ComponentState } | { end: ComponentEnd["reason"] }>;

export type OpenStream = {
  tokenId: number;
  organisationId: number;
  customerHash: string;
  clientKey: string;
  /** looks again and sends the state when it changed (or `ping` when asked and unchanged); ends the stream when the token did */
  refresh(ping?: boolean): Promise<void>;
  /** ends the stream, with an `end` event when a reason is given */
  end(reason?: ComponentEnd["reason"]): void;
};

export type Refusal = "token" | "address" | "process";

export class StatusStreams {
  readonly open = new Set<OpenStream>();
  private readonly perToken = new Map<number, number>();
  private readonly perAddress = new Map<string, number>();
  private stopped = false;

  /** the per-process cap (a test lowers it to reach it) */
  cap: number = CALL_STATUS_LIMITS.streamsPerProcess;

  /** Which limit a new stream of this token and address would break, or null. */
  refusal(tokenId: number, clientKey: string): Refusal | null {
    if ((this.perToken.get(tokenId) ?? 0) >= CALL_STATUS_LIMITS.streamsPerToken) return "token";
    if ((this.perAddress.get(clientKey) ?? 0) >= CALL_STATUS_LIMITS.streamsPerAddress) return "address";
    if (this.open.size >= this.cap) return "process";
    return null;
  }

  add(stream: OpenStream): () => void {
    this.open.add(stream);
    this.perToken.set(stream.tokenId, (this.perToken.get(stream.tokenId) ?? 0) + 1);
    this.perAddress.set(stream.clientKey, (this.perAddress.get(stream.clientKey) ?? 0) + 1);
    // Opened while the server stops (its request was in flight): it ends at once, as the others did.
    if (this.stopped) queueMicrotask(() => stream.end());
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.open.delete(stream);
      decrement(this.perToken, stream.tokenId);
      decrement(this.perAddress, stream.clientKey);
    };
  }

  /** The open streams of an organisation (a revocation there: they look again). */
  ofOrganisation(organisationId: number): OpenStream[] {
    return [...this.open].filter((s) => s.organisationId === organisationId);
  }

  endAll() {
    this.stopped = true;
    for (const stream of [...this.open]) stream.end();
  }
}

function decrement<K>(map: Map<K, number>, key: K) {
  const left = (map.get(key) ?? 1) - 1;
  if (left > 0) map.set(key, left);
  else map.delete(key);
}

const sseEvent = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * Opens one stream: the first state at once, then `state` on every change `look` finds (woken by
 * `subscribe`'s listener: the customer's calls and checks, and the LISTEN connection's return), `ping`
 * every heartbeat once the server has looked again and found nothing new, and `end` before it ends when
 * the token expired or was revoked. Null when a limit refuses it.
 */
export function openComponentStream(
  streams: StatusStreams,
  p: {
    tokenId: number;
    organisationId: number;
    customerHash: string;
    clientKey: string;
    first: ComponentState;
    look: Look;
    subscribe: (listener: () => void) => () => void;
    now: () => Date;
  },
): { body: PassThrough; close: () => void } | Refusal {
  const refused = streams.refusal(p.tokenId, p.clientKey);
  if (refused) return refused;
  const body = new PassThrough();
  let last = JSON.stringify(p.first);
  let done = false;
  let looking: Promise<void> | null = null;
  let again: boolean | null = null;
  const cleanups: Array<() => void> = [];

  const end = (reason?: ComponentEnd["reason"]) => {
    if (done) return;
    done = true;
    for (const cleanup of cleanups.splice(0)) cleanup();
    if (reason) body.write(sseEvent("end", { reason } satisfies ComponentEnd));
    body.end();
  };

  const lookOnce = async (ping: boolean) => {
    const seen = await p.look().catch(() => null);
    if (done) return;
    // The database did not answer: say nothing (the component's 30 s without a ping turns it unavailable).
    if (!seen) return;
    if ("end" in seen) return end(seen.end);
    const now = JSON.stringify(seen.state);
    if (now !== last) {
      last = now;
      body.write(sseEvent("state", seen.state));
    } else if (ping) {
      body.write(sseEvent("ping", { at: p.now().toISOString() }));
    }
  };

  /** One look at a time; a wake-up during a look asks for one more after it. */
  const refresh = (ping = false): Promise<void> => {
    if (done) return Promise.resolve();
    if (looking) {
      again = (again ?? false) || ping;
      return looking;
    }
    looking = (async () => {
      let asked: boolean | null = ping;
      while (asked !== null && !done) {
        again = null;
        await lookOnce(asked);
        asked = again;
      }
    })().finally(() => {
      looking = null;
    });
    return looking;
  };

  const stream: OpenStream = {
    tokenId: p.tokenId,
    organisationId: p.organisationId,
    customerHash: p.customerHash,
    clientKey: p.clientKey,
    refresh,
    end,
  };
  cleanups.push(streams.add(stream));
  cleanups.push(p.subscribe(() => void refresh()));
  const heartbeat = setInterval(() => void refresh(true), CALL_STATUS_LIMITS.heartbeatMs);
  heartbeat.unref();
  cleanups.push(() => clearInterval(heartbeat));
  body.write(sseEvent("state", p.first));
  // A change between the first read and the subscription would otherwise be missed.
  void refresh();
  return { body, close: () => end() };
}
