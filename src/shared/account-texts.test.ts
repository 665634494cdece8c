import { describe, expect, it } from "vitest";
import { cleanUserAgent, deviceLabel, USER_AGENT_MAX_LENGTH } from "./account-texts";

describe("deviceLabel", () => {
  it.each([
    [
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36",
      "Chrome on Windows",
    ],
    [
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/126.0 Safari/537.36 Edg/126.0",
      "Edge on Windows",
    ],
    [
      "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Version/17.5 Mobile/15E148 Safari/604.1",
      "Safari on iOS",
    ],
    [
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 Version/17.5 Safari/605.1.15",
      "Safari on macOS",
    ],
    ["Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0", "Firefox on Linux"],
    [
      "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/126.0 Mobile Safari/537.36",
      "Chrome on Android",
    ],
    ["Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 HeadlessChrome/126.0 Safari/537.36", "Chrome on Linux"],
    ["curl/8.5.0", "curl"],
    ["Mozilla/5.0 (X11; Linux x86_64) SomethingNew/1.0", "Browser on Linux"],
    ["", "Unknown device"],
    [null, "Unknown device"],
  ])("%s → %s", (userAgent, label) => {
    expect(deviceLabel(userAgent)).toBe(label);
  });
});

describe("cleanUserAgent", () => {
  it("drops control and bidi characters, bounds the length, and stores nothing for an empty value", () => {
    expect(cleanUserAgent("Firefox/128\u0000\u0007\u202e\u200f")).toBe("Firefox/128");
    expect(cleanUserAgent("x".repeat(5000))).toHaveLength(USER_AGENT_MAX_LENGTH);
    expect(cleanUserAgent("  \u0001 ")).toBeNull();
    expect(cleanUserAgent(undefined)).toBeNull();
  });
});
