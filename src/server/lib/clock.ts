/** The time source of the server. Tests pass a settable clock instead of sleeping. */
export type Clock = { now(): Date };

export const systemClock: Clock = { now: () => new Date() };

export type TestClock = Clock & { set(d: Date | number): void; advance(ms: number): void };

export function testClock(start: Date | number = Date.now()): TestClock {
  let t = new Date(start).getTime();
  return {
    now: () => new Date(t),
    set: (d) => {
      t = new Date(d).getTime();
    },
    advance: (ms) => {
      t += ms;
    },
  };
}
