/**
 * A process's open event streams, counted per user (a few tabs, not a flood) and ended together when the
 * server stops (browsers reconnect to another process). The codes' and the calls' streams both use it.
 */
export class StreamsPerUser {
  private readonly perUser = new Map<number, number>();
  private readonly streams = new Set<() => void>();
  private stopped = false;

  /** Counts an open stream of a user; null when the user already has `max`. */
  open(userId: number, max: number, end: () => void): (() => void) | null {
    const n = this.perUser.get(userId) ?? 0;
    if (n >= max) return null;
    this.perUser.set(userId, n + 1);
    this.streams.add(end);
    // Opened while the server stops (its request was in flight): it ends at once, as the others did.
    if (this.stopped) queueMicrotask(end);
    return () => {
      this.streams.delete(end);
      const left = (this.perUser.get(userId) ?? 1) - 1;
      if (left > 0) this.perUser.set(userId, left);
      else this.perUser.delete(userId);
    };
  }

  /** Ends every open stream (the server is stopping). */
  endAll() {
    this.stopped = true;
    for (const end of [...this.streams]) end();
  }
}
