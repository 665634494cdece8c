import { describe, expect, it } from "vitest";
import { type OpenStream, StatusStreams } from "./status-stream";

const stream = (ended: string[], name: string, tokenId = 1): OpenStream => ({
  tokenId,
  organisationId: 1,
  customerHash: "h",
  clientKey: "203.0.113.9",
  refresh: async () => {},
  end: () => ended.push(name),
});

describe("the call-status component's streams of a process", () => {
  it("end when the server stops, and one whose request was still in flight as soon as it opens", async () => {
    const streams = new StatusStreams();
    const ended: string[] = [];
    streams.add(stream(ended, "open before"));
    streams.endAll();
    expect(ended).toEqual(["open before"]);
    streams.add(stream(ended, "opened during the stop", 2));
    await Promise.resolve();
    expect(ended).toEqual(["open before", "opened during the stop"]);
  });
});
