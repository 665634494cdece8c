/** A server-sent event stream read the way an EventSource reads it (a test helper, not a test file). */

export type StreamEvent<T> = { event: string; data: T; at: number };

/**
 * GETs `url` over real HTTP and collects its events (`event:` and `data:` lines, `data` parsed as JSON,
 * `at` the time it arrived by performance.now()) until the server ends the stream or `close()`.
 */
export async function openEventStream<T>(url: string, headers: Record<string, string>) {
  const controller = new AbortController();
  const res = await fetch(url, { headers, signal: controller.signal });
  const events: StreamEvent<T>[] = [];
  const waiters: Array<() => void> = [];
  let ended = false;
  const wake = () => {
    for (const w of waiters.splice(0)) w();
  };
  const reading = (async () => {
    if (!res.body) return;
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        for (let cut = buffer.indexOf("\n\n"); cut >= 0; cut = buffer.indexOf("\n\n")) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data) events.push({ event, data: JSON.parse(data) as T, at: performance.now() });
          wake();
        }
      }
    } catch {
      // aborted by close()
    }
  })().finally(() => {
    ended = true;
    wake();
  });
  return {
    res,
    events,
    get ended() {
      return ended;
    },
    /** Waits until an event of that name came (or the stream ended: then undefined). */
    async next(name: string): Promise<StreamEvent<T> | undefined> {
      while (!events.some((e) => e.event === name) && !ended) await new Promise<void>((r) => waiters.push(r));
      return events.find((e) => e.event === name);
    },
    /** Waits for the first event from index `from` on that passes `test` (or the stream's end: then undefined). */
    async until(test: (e: StreamEvent<T>) => boolean, from = 0): Promise<StreamEvent<T> | undefined> {
      for (;;) {
        const found = events.slice(from).find(test);
        if (found || ended) return found;
        await new Promise<void>((r) => waiters.push(r));
      }
    },
    async close() {
      controller.abort();
      await reading;
    },
  };
}
