import { auditLog } from "@server/db/schema";
import { buildTestApp, type TestApp } from "@test/helpers";
import { desc, eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
});

/** The client IP the server saw for one widget look-up (its audit row records it). */
async function seenIp(app: TestApp, remoteAddress: string, forwardedFor?: string) {
  await app.app.inject({
    method: "POST",
    url: "/api/verify",
    remoteAddress,
    headers: { "content-type": "application/json", ...(forwardedFor ? { "x-forwarded-for": forwardedFor } : {}) },
    payload: { words: "zoo zoo zoo" },
  });
  const [row] = await app.database.db
    .select({ ip: auditLog.ip })
    .from(auditLog)
    .where(eq(auditLog.action, "code.verify"))
    .orderBy(desc(auditLog.id))
    .limit(1);
  return row?.ip;
}

describe("the client IP behind proxies", () => {
  it("with a list of proxies, is the address the nearest untrusted hop gave: a forged left-most entry is ignored", async () => {
    t = await buildTestApp({ env: { TRUST_PROXY: "10.0.0.0/8,127.0.0.1" } });
    // client → load balancer (10.0.0.7) → proxy (127.0.0.1) → server; the client wrote "6.6.6.6" itself.
    expect(await seenIp(t, "127.0.0.1", "6.6.6.6, 203.0.113.9, 10.0.0.7")).toBe("203.0.113.9");
    // a request straight from a stranger: its own X-Forwarded-For is not believed
    expect(await seenIp(t, "198.51.100.4", "6.6.6.6")).toBe("198.51.100.4");
  });

  it("with a hop count, is the entry that many proxies back", async () => {
    t = await buildTestApp({ env: { TRUST_PROXY: "1" } });
    expect(await seenIp(t, "192.0.2.10", "6.6.6.6, 203.0.113.9")).toBe("203.0.113.9");
  });

  it("unset, is the connection's address", async () => {
    t = await buildTestApp();
    expect(await seenIp(t, "192.0.2.10", "6.6.6.6")).toBe("192.0.2.10");
  });
});
