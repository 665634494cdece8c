import { describe, expect, it } from "vitest";
import { StreamsPerUser } from "./streams-per-user";

describe("a process's streams per user", () => {
  it("counts a user's streams up to the limit and frees a place when one ends", () => {
    const streams = new StreamsPerUser();
    const release = streams.open(7, 2, () => {});
    expect(streams.open(7, 2, () => {})).not.toBeNull();
    expect(streams.open(7, 2, () => {})).toBeNull();
    expect(streams.open(8, 2, () => {})).not.toBeNull();
    release?.();
    expect(streams.open(7, 2, () => {})).not.toBeNull();
  });

  it("ends every stream when the server stops, and one whose request was still in flight as soon as it opens", async () => {
    const streams = new StreamsPerUser();
    const ended: string[] = [];
    streams.open(1, 5, () => ended.push("open before"));
    streams.endAll();
    expect(ended).toEqual(["open before"]);
    streams.open(2, 5, () => ended.push("opened during the stop"));
    await Promise.resolve();
    expect(ended).toEqual(["open before", "opened during the stop"]);
  });
});
