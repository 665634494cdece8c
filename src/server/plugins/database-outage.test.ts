import net from "node:net";
import { openDatabase } from "@server/db/client";
import { DATABASE_UNAVAILABLE } from "@server/lib/database-errors";
import { freshIp, generate, signedInEmployee, verify } from "@test/fixtures";
import { buildTestApp, type TestApp, throwawayPostgres } from "@test/helpers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * A TCP proxy in front of PostgreSQL that can be cut (connections reset, new ones refused) and restored, or
 * made to hold: connections reset, new ones accepted but not passed on until `release`.
 */
async function tcpProxy(target: { host: string; port: number }) {
  let mode: "up" | "cut" | "hold" = "up";
  const sockets = new Set<net.Socket>();
  const held: net.Socket[] = [];
  let onHeld: (() => void) | null = null;
  const pass = (client: net.Socket) => {
    const upstream = net.connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  };
  const server = net.createServer((client) => {
    if (mode === "cut") return client.destroy();
    if (mode === "up") return pass(client);
    client.pause();
    held.push(client);
    onHeld?.();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as net.AddressInfo;
  const resetAll = () => {
    for (const s of sockets) s.destroy();
  };
  return {
    port: address.port,
    cut() {
      mode = "cut";
      resetAll();
    },
    restore() {
      mode = "up";
    },
    hold() {
      mode = "hold";
      resetAll();
    },
    /** Resolves once a connection is held. */
    heldConnection: () =>
      new Promise<void>((resolve) => {
        onHeld = resolve;
        if (held.length > 0) resolve();
      }),
    /** Passes the held connections on, and new ones from now on. */
    release() {
      mode = "up";
      for (const client of held.splice(0)) {
        pass(client);
        client.resume();
      }
    },
    /** Connections open through the proxy (both ends counted). */
    open: () => sockets.size,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const onPostgres = process.env.TEST_DB === "postgres";

describe.skipIf(!onPostgres)("PostgreSQL outage", () => {
  let t: TestApp;
  let proxy: Awaited<ReturnType<typeof tcpProxy>>;
  let scratch: Awaited<ReturnType<typeof throwawayPostgres>>;

  beforeAll(async () => {
    scratch = await throwawayPostgres(process.env.TEST_DATABASE_URL ?? "");
    const direct = new URL(scratch.url);
    proxy = await tcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    const viaProxy = new URL(scratch.url);
    viaProxy.hostname = "127.0.0.1";
    viaProxy.port = String(proxy.port);
    t = await buildTestApp({ database: await openDatabase({ databaseUrl: viaProxy.toString() }) });
  });
  afterAll(async () => {
    await t.close();
    await t.database.close();
    await proxy.close();
    await scratch.drop();
  });

  it("answers 503 quickly while the database is gone, never verifies, and recovers without a restart", async () => {
    const { browser } = await signedInEmployee(t);
    const { words } = await generate(browser);
    expect((await t.app.inject("/readyz")).statusCode).toBe(200);

    proxy.cut();
    const started = Date.now();
    const lookup = await verify(t, words.join(" "), { ip: freshIp() });
    expect(lookup.statusCode).toBe(503);
    expect(lookup.json().message).toBeTruthy();
    expect(lookup.body).not.toContain('"verified":true');

    const signedIn = await browser.get("/api/client-info");
    expect(signedIn.statusCode).toBe(503);
    expect(signedIn.json()).toEqual(DATABASE_UNAVAILABLE);

    const login = await browser.post("/api/auth/login", { email: "someone@example.com", password: "Whatever-1!" });
    expect(login.statusCode).toBe(503);

    const ready = await t.app.inject("/readyz");
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toEqual({ status: "unavailable" });
    expect((await t.app.inject("/healthz")).statusCode).toBe(200);
    // Every answer above came without waiting for a time-out.
    expect(Date.now() - started).toBeLessThan(5000);

    proxy.restore();
    let readyAgain = 0;
    for (let i = 0; i < 50 && readyAgain !== 200; i++) {
      readyAgain = (await t.app.inject("/readyz")).statusCode;
      if (readyAgain !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(readyAgain).toBe(200);
    expect((await browser.get("/api/client-info")).statusCode).toBe(200);
    const after = await verify(t, words.join(" "), { ip: freshIp() });
    expect(after.json()).toMatchObject({ verified: true });
  });

  it("closes without leaving a connection behind while its LISTEN connection is reconnecting", async () => {
    const own = await tcpProxy({
      host: new URL(scratch.url).hostname,
      port: Number(new URL(scratch.url).port || 5432),
    });
    const viaProxy = new URL(scratch.url);
    viaProxy.hostname = "127.0.0.1";
    viaProxy.port = String(own.port);
    const database = await openDatabase({ databaseUrl: viaProxy.toString() });
    try {
      await database.notifications.listen("outage_test", () => {});
      // The LISTEN connection is lost; its reconnection reaches the proxy and waits there.
      const reconnecting = own.heldConnection();
      own.hold();
      await reconnecting;
      // Closed while the reconnection is under way, which then completes: it must not be kept open.
      const closing = database.close();
      own.release();
      await closing;
      await expect.poll(own.open).toBe(0);
    } finally {
      own.cut(); // whatever was left open, so that the proxy can close
      await own.close();
    }
  });
});
