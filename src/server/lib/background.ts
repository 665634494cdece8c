import type { Log } from "@server/context";

/**
 * The one place background work runs: a task started after an answer (a mail, a summary), or a job
 * that runs every N ms. Failures are logged, never thrown into the void; a job never overlaps itself;
 * `idle()` lets tests await the work instead of sleeping; `stop()` ends the jobs on shutdown and waits
 * for what is running, including the tasks that work starts while stop() waits for it (a webhook turn that
 * has claimed deliveries starts them: dropping them would leave them leased, untried, for a minute).
 */
export type Background = {
  /** runs `work` now, logging a failure as `what`; the promise is tracked by idle() and stop() */
  run(what: string, work: () => Promise<unknown>): void;
  /**
   * runs `work` every `everyMs` (first after `firstAfterMs`, default `everyMs`), never two at once;
   * `wake()` runs it as soon as the running turn ends; a turn that returns `true` asks for another at once
   */
  every(
    what: string,
    everyMs: number,
    work: () => Promise<unknown>,
    opts?: { firstAfterMs?: number },
  ): { wake(): void };
  /** resolves once nothing runs or is woken (jobs waiting for their next turn do not count) */
  idle(): Promise<void>;
  /**
   * gives every job a turn now and resolves when the work is idle again: a test asserts that nothing more
   * happens (no retry before its time, no second delivery) after a turn has really looked, without sleeping
   */
  turn(): Promise<void>;
  /** stops every job and waits for the running work and what it starts meanwhile; run() once stop() resolved is ignored */
  stop(): Promise<void>;
};

export function background(log: Log): Background {
  const running = new Set<Promise<unknown>>();
  const timers = new Set<NodeJS.Timeout>();
  const wakers = new Set<() => void>();
  /** stop() was called: no new job turns */
  let stopped = false;
  /** stop() resolved: nothing runs any more */
  let closed = false;

  const track = (what: string, work: () => Promise<unknown>): Promise<unknown> => {
    const p = Promise.resolve()
      .then(work)
      .catch((err) => log.warn({ err }, `${what} failed`))
      .finally(() => running.delete(p));
    running.add(p);
    return p;
  };

  const idle = async () => {
    while (running.size > 0) await Promise.allSettled([...running]);
  };

  return {
    run(what, work) {
      if (closed) return;
      void track(what, work);
    },

    every(what, everyMs, work, opts = {}) {
      let turn: Promise<unknown> | null = null;
      let again = false;
      let timer: NodeJS.Timeout | undefined;
      const schedule = (ms: number) => {
        if (stopped) return;
        if (timer) {
          clearTimeout(timer);
          timers.delete(timer);
        }
        timer = setTimeout(start, ms);
        timer.unref();
        timers.add(timer);
      };
      function start() {
        if (stopped) return;
        if (turn) {
          again = true;
          return;
        }
        again = false;
        turn = track(what, async () => {
          for (;;) {
            if ((await work()) === true) again = true;
            if (!again || stopped) break;
            again = false;
          }
        }).finally(() => {
          turn = null;
          schedule(everyMs);
        });
      }
      schedule(opts.firstAfterMs ?? everyMs);
      wakers.add(start);
      return { wake: start };
    },

    idle,

    async turn() {
      await idle();
      for (const wake of wakers) wake();
      await idle();
    },

    async stop() {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      while (running.size > 0) await Promise.allSettled([...running]);
      closed = true;
    },
  };
}
