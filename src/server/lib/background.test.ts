import { describe, expect, it } from "vitest";
import { background } from "./background";

function logger() {
  const warnings: string[] = [];
  const log = { error() {}, info() {}, warn: (_f: object, m: string) => void warnings.push(m) };
  return { log, warnings };
}

describe("background runner", () => {
  it("logs a failed task instead of throwing, and idle() waits for every task", async () => {
    const { log, warnings } = logger();
    const bg = background(log);
    let done = 0;
    bg.run("mail", async () => {
      await new Promise((r) => setImmediate(r));
      done++;
    });
    bg.run("summary", async () => {
      throw new Error("smtp down");
    });
    await bg.idle();
    expect(done).toBe(1);
    expect(warnings).toEqual(["summary failed"]);
  });

  it("never overlaps a job with itself; a wake during a turn runs one more turn", async () => {
    const { log } = logger();
    const bg = background(log);
    let inFlight = 0;
    let maxInFlight = 0;
    let turns = 0;
    let release: () => void = () => {};
    const job = bg.every("sweep", 3_600_000, async () => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      turns++;
      if (turns === 1) await new Promise<void>((r) => (release = r));
      inFlight--;
    });
    job.wake();
    job.wake();
    job.wake();
    await new Promise((r) => setImmediate(r));
    release();
    await bg.idle();
    expect(turns).toBe(2);
    expect(maxInFlight).toBe(1);
    await bg.stop();
  });

  it("a turn that returns true asks for another; stop() waits for the running turn and ends the job", async () => {
    const { log } = logger();
    const bg = background(log);
    let turns = 0;
    const job = bg.every("drain", 3_600_000, async () => ++turns < 3);
    job.wake();
    await bg.idle();
    expect(turns).toBe(3);
    await bg.stop();
    job.wake();
    bg.run("late", async () => {
      turns = 100;
    });
    await bg.idle();
    expect(turns).toBe(3);
  });

  it("turn() gives every job a turn now and waits for it and the tasks it starts", async () => {
    const { log } = logger();
    const bg = background(log);
    const seen: string[] = [];
    bg.every("hourly a", 3_600_000, async () => {
      seen.push("a");
      bg.run("a's task", async () => {
        seen.push("a-task");
      });
    });
    bg.every("hourly b", 3_600_000, async () => {
      seen.push("b");
    });
    await bg.turn();
    expect(seen.sort()).toEqual(["a", "a-task", "b"]);
    await bg.stop();
  });

  it("stop() also waits for the tasks a running turn starts while it waits (claimed work is not dropped)", async () => {
    const { log } = logger();
    const bg = background(log);
    let claimed: () => void = () => {};
    let inTurn: () => void = () => {};
    const turnStarted = new Promise<void>((r) => (inTurn = r));
    const delivered: number[] = [];
    const job = bg.every("deliveries", 3_600_000, async () => {
      // the turn is between claiming work and starting it when stop() is called
      const claim = new Promise<void>((r) => (claimed = r));
      inTurn();
      await claim;
      for (const id of [1, 2]) {
        bg.run("delivery", async () => {
          await new Promise((r) => setImmediate(r));
          delivered.push(id);
        });
      }
    });
    job.wake();
    await turnStarted;
    const stopping = bg.stop();
    claimed();
    await stopping;
    expect(delivered).toEqual([1, 2]);
  });
});
