import { describe, expect, it } from "vitest";
import { batched } from "./batched";

/** A send that records each call's items and finishes only when the test lets it. */
function gate() {
  const calls: string[][] = [];
  const finish: Array<(err?: Error) => void> = [];
  const send = batched<string>(
    (items) =>
      new Promise<void>((resolve, reject) => {
        calls.push(items);
        finish.push((err) => (err ? reject(err) : resolve()));
      }),
  );
  return { calls, finish, send };
}

describe("batched (group commit)", () => {
  it("sends the first item at once and what comes meanwhile together in the next call, one call at a time", async () => {
    const { calls, finish, send } = gate();
    const first = send("a");
    await Promise.resolve();
    expect(calls).toEqual([["a"]]);
    const rest = [send("b"), send("c"), send("d")];
    await Promise.resolve();
    // one call in flight: b, c and d wait for it
    expect(calls).toEqual([["a"]]);
    finish[0]!();
    await first;
    await expect.poll(() => calls.length).toBe(2);
    expect(calls[1]).toEqual(["b", "c", "d"]);
    finish[1]!();
    await Promise.all(rest);
  });

  it("a failed call fails its own items only; the next call goes ahead", async () => {
    const { calls, finish, send } = gate();
    const first = send("a");
    await Promise.resolve();
    const second = send("b");
    finish[0]!(new Error("the database is down"));
    await expect(first).rejects.toThrow("the database is down");
    await expect.poll(() => calls.length).toBe(2);
    finish[1]!();
    await expect(second).resolves.toBeUndefined();
  });
});
