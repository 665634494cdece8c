import type { CodeStatus } from "@shared/codes";
import { describe, expect, it } from "vitest";
import { CodeEvents, openStatusStream, parsePayload, verifiedPayload } from "./live";

describe("a code's wake-up", () => {
  it("carries a verification's time and site, and reads a bare id as 'look again'", () => {
    const verified = { verifiedAt: "2026-11-28T08:00:00.000Z", site: "www.acme.example" };
    expect(parsePayload(verifiedPayload(42, verified))).toEqual({ id: 42, verified });
    expect(parsePayload(verifiedPayload(7, { ...verified, site: null }))).toEqual({
      id: 7,
      verified: { ...verified, site: null },
    });
    // what a process of an earlier version publishes
    expect(parsePayload("42")).toEqual({ id: 42 });
    for (const bad of [
      "",
      "x",
      "-1",
      "1e3",
      "{",
      "[]",
      '{"id":"42"}',
      '{"id":1.5,"verifiedAt":"2026-11-28"}',
      '{"id":3,"verifiedAt":"soon"}',
    ]) {
      expect({ bad, parsed: parsePayload(bad) }).toEqual({ bad, parsed: null });
    }
  });
});

describe("openStatusStream", () => {
  const first: CodeStatus = {
    id: 42,
    status: "live",
    expiresAt: new Date(Date.now() + 60_000).toISOString(),
    verifiedAt: null,
    site: null,
  };

  /** A stream of a live code whose reads say it is still live, with the events written and the reads made. */
  function stream() {
    const events = new CodeEvents();
    let reads = 0;
    const opened = openStatusStream(events, {
      userId: 1,
      first,
      msUntilExpiry: 60_000,
      look: async () => {
        reads++;
        return first;
      },
    });
    if (!opened) throw new Error("stream refused");
    let text = "";
    opened.body.on("data", (chunk: Buffer) => {
      text += chunk.toString();
    });
    const ended = new Promise<void>((resolve) => opened.body.on("end", resolve));
    return { events, reads: () => reads, text: () => text, ended, close: opened.close };
  }

  it("shows a verification the wake-up carried without reading the code again", async () => {
    const s = stream();
    await Promise.resolve();
    const readsBefore = s.reads();
    const verified = { verifiedAt: "2026-11-28T08:00:00.000Z", site: "www.acme.example" };
    s.events.notify(42, verified);
    await s.ended;
    expect(s.reads()).toBe(readsBefore);
    const data = s.text().match(/event: verified\ndata: (.*)\n/)?.[1];
    expect(JSON.parse(data ?? "null")).toEqual({ ...first, status: "verified", ...verified });
  });

  it("reads the code again on a wake-up without a verification, and stays open while it is live", async () => {
    const s = stream();
    await Promise.resolve();
    const readsBefore = s.reads();
    s.events.notify(42);
    await Promise.resolve();
    expect(s.reads()).toBe(readsBefore + 1);
    expect(s.text()).not.toContain("event: verified");
    s.close();
    await s.ended;
  });
});
