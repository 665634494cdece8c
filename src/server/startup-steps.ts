/**
 * How long each step of a start took, for the "Ready in …" log line and `npm run bench -- startup`.
 * Times are milliseconds on the process's own clock (performance.now(): 0 is when the process started).
 * `scripts/start.mjs` marks its stale-build check with performance marks of the names below, so the
 * line also tells what happened before the server's own code ran.
 */
import { performance } from "node:perf_hooks";

export const BUILD_CHECK_MARKS = { start: "callproof:build-check-start", end: "callproof:build-check-end" } as const;

export type StartupSteps = {
  /** ends the current step as `name` (its time runs from the previous step's end) */
  step(name: string): void;
  /** every step in order, with the time before the first one split into its parts */
  summary(): { totalMs: number; cpuMs: number; steps: Record<string, number> };
};

const round = (ms: number) => Math.round(ms);

export function startupSteps(): StartupSteps {
  const entered = performance.now();
  const steps: Array<[string, number]> = [];
  let last = entered;
  return {
    step(name) {
      const now = performance.now();
      steps.push([name, now - last]);
      last = now;
    },
    summary() {
      // Before main(): Node's own bootstrap, `npm start`'s stale-build check (when it ran), then loading the
      // entry's modules (main.js and what it imports; main() loads the rest of the server as its own step).
      const node = performance.nodeTiming.bootstrapComplete;
      const check = performance.getEntriesByName(BUILD_CHECK_MARKS.start)[0];
      const checked = performance.getEntriesByName(BUILD_CHECK_MARKS.end)[0];
      const before: Array<[string, number]> = [["node", node]];
      if (check && checked) {
        before.push(["build check", checked.startTime - check.startTime]);
        before.push(["entry modules", entered - checked.startTime + (check.startTime - node)]);
      } else before.push(["entry modules", entered - node]);
      const cpu = process.cpuUsage();
      return {
        totalMs: round(last),
        // CPU time of the whole process (every thread) until now: less swayed than wall time by a busy machine.
        cpuMs: round((cpu.user + cpu.system) / 1000),
        steps: Object.fromEntries([...before, ...steps].map(([name, ms]) => [name, round(ms)])),
      };
    },
  };
}

/** "node 40, build check 30, modules 520, …" */
export function describeSteps(steps: Record<string, number>): string {
  return Object.entries(steps)
    .map(([name, ms]) => `${name} ${ms}`)
    .join(", ");
}
