import { describe, expect, it } from "vitest";
import { safeEqual } from "./crypto";

describe("safeEqual", () => {
  it("is true only for the same secret, whatever the lengths (both sides are hashed to 32 bytes first)", () => {
    const token = "metrics-token-0123456789abcdef";
    expect(safeEqual(token, token)).toBe(true);
    expect(safeEqual(token, `${token}x`)).toBe(false);
    expect(safeEqual(token, token.slice(0, -1))).toBe(false);
    expect(safeEqual(token, "")).toBe(false);
    expect(safeEqual("", "")).toBe(true);
    expect(safeEqual(token, token.replace("0", "1"))).toBe(false);
  });
});
