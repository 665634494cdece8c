import { describe, expect, it } from "vitest";
import { ipKey, ipv6Network48 } from "./ip";

describe("rate-limit key of a client address", () => {
  it("keeps IPv4 as it is, also when mapped into IPv6", () => {
    expect(ipKey("203.0.113.7")).toBe("203.0.113.7");
    expect(ipKey("::ffff:203.0.113.7")).toBe("203.0.113.7");
  });
  it("groups IPv6 by its /64, however it is written", () => {
    expect(ipKey("2001:db8:1:2:3:4:5:6")).toBe("2001:db8:1:2::/64");
    expect(ipKey("2001:db8:1:2::9")).toBe("2001:db8:1:2::/64");
    expect(ipKey("2001:0DB8:0001:0002:ffff::1")).toBe("2001:db8:1:2::/64");
    expect(ipKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(ipKey("::1")).toBe("0:0:0:0::/64");
    expect(ipKey("2001:db8:1:3::1")).not.toBe(ipKey("2001:db8:1:2::1"));
  });
});

describe("the /48 of a client address (reports)", () => {
  it("groups the /64s of one /48 together, and leaves IPv4 out", () => {
    expect(ipv6Network48("2001:db8:5:ff00::1")).toBe("2001:db8:5::/48");
    expect(ipv6Network48("2001:db8:5:1:2:3:4:5")).toBe("2001:db8:5::/48");
    expect(ipv6Network48("2001:db8:6::1")).toBe("2001:db8:6::/48");
    expect(ipv6Network48("2001:db8::1")).toBe("2001:db8:0::/48");
    expect(ipv6Network48("203.0.113.7")).toBeNull();
    expect(ipv6Network48("::ffff:203.0.113.7")).toBeNull();
  });
});
