import { describe, expect, it } from "vitest";
import { safeEqual, sealFor, unsealFor } from "./crypto";

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

describe("sealFor", () => {
  it("opens only with the same secret and context (organisation and purpose)", () => {
    const secret = "app-secret-app-secret-app-secret-42";
    const sealed = sealFor(secret, "sso-client-secret:1", "the client secret");
    expect(sealed).not.toContain("client secret");
    expect(unsealFor(secret, "sso-client-secret:1", sealed)).toBe("the client secret");
    expect(() => unsealFor(secret, "sso-client-secret:2", sealed)).toThrow();
    expect(() => unsealFor(secret, "webhook-secret:1", sealed)).toThrow();
    expect(() => unsealFor(`${secret}x`, "sso-client-secret:1", sealed)).toThrow();
  });
});
