import { createServer as createHttpServer, type ServerResponse } from "node:http";
import { createServer, type Server, type Socket } from "node:net";
import { webhookDeliveries, webhookEndpoints } from "@server/db/schema";
import { createEmployer, freshIp, TRUST_PROXY_ENV } from "@test/fixtures";
import { buildTestApp, signedIn, type TestApp } from "@test/helpers";
import { Receiver } from "@test/webhook-receiver";
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pauseEndpoint } from "./repository";
import { claimDeliveries, pauseMs, WEBHOOK_FAIRNESS, WEBHOOK_TIMEOUTS } from "./service";

const ENV = { ...TRUST_PROXY_ENV, OUTBOUND_ALLOWED_HOSTS: "loopback" };

/** A loopback server that accepts every connection and never answers: a dead receiver. */
class BlackHole {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  accepted = 0;
  port = 0;

  async start() {
    this.server = createServer((socket) => {
      this.accepted++;
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
      socket.on("error", () => {});
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  get url() {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  async stop() {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = null;
  }
}

/** A loopback receiver that holds every request until the test answers them. */
class HoldingReceiver {
  private readonly server = createHttpServer((req, res) => {
    req.resume();
    req.on("end", () => this.held.push(res));
  });
  held: ServerResponse[] = [];
  received = 0;
  port = 0;

  async start() {
    this.server.on("request", () => this.received++);
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  get url() {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  answerAll(status: number) {
    for (const res of this.held.splice(0)) res.writeHead(status).end();
  }

  async stop() {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

let t: TestApp;
let receiver: Receiver;
let blackHole: BlackHole;
beforeEach(async () => {
  t = await buildTestApp({ env: ENV });
  receiver = await new Receiver().start();
  blackHole = await new BlackHole().start();
});
afterEach(async () => {
  // The dead receiver goes first, so that the deliveries it holds end before the app waits for them.
  await blackHole.stop();
  await receiver.stop();
  await t?.close();
});

async function employerWithWebhook(url: string) {
  const employer = await createEmployer(t);
  const browser = await signedIn(t, employer.user);
  const res = await browser.request("PUT", "/api/employer/webhook", { url });
  expect(res.statusCode, res.body).toBe(200);
  return { ...employer, browser };
}

/** A customer's report from the organisation's own site: a `call.reported` event for its webhook. */
async function report(domain: string, note: string) {
  const res = await t.app.inject({
    method: "POST",
    url: "/api/reports",
    headers: { "content-type": "application/json", origin: `https://${domain}`, "x-forwarded-for": freshIp() },
    payload: JSON.stringify({ note }),
  });
  expect(res.statusCode, res.body).toBe(201);
}

describe("one organisation's dead endpoint never delays another's webhooks", () => {
  it("with a black hole holding 100 events, another organisation's event arrives within 2 s", async () => {
    expect(WEBHOOK_TIMEOUTS.connectMs).toBeLessThan(WEBHOOK_TIMEOUTS.readMs);
    const dead = await employerWithWebhook(blackHole.url);
    for (let i = 0; i < 100; i++) await report(dead.org.domain, `to the black hole ${i}`);
    // The worker is busy with the black hole (its first deliveries are connected and waiting).
    await expect.poll(() => blackHole.accepted).toBeGreaterThan(0);

    const alive = await employerWithWebhook(receiver.url);
    await report(alive.org.domain, "for the live receiver");
    // The bound is the wait: before, the batch waited 10 s for its slowest delivery.
    const [got] = await receiver.waitFor(1, 2_000);
    expect(JSON.parse(got!.body)).toMatchObject({ type: "call.reported", data: { note: "for the live receiver" } });
    // The dead endpoint holds no more than its share: its deliveries in flight (leased) are at most 4 (none
    // once its breaker has opened).
    const inFlight = (
      await t.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.organisationId, dead.org.id))
    ).filter((d) => d.status === "pending" && d.lockedUntil !== null && d.lockedUntil > t.clock.now());
    expect(inFlight.length).toBeLessThanOrEqual(WEBHOOK_FAIRNESS.perEndpoint);
  });

  it("pauses an endpoint that keeps failing as a whole, shows it, and still sends a test event at once", async () => {
    const failing = await employerWithWebhook(receiver.url);
    receiver.statuses = Array(50).fill(500);
    for (let i = 0; i < 12; i++) await report(failing.org.domain, `report ${i}`);

    // After 5 failures in a row the endpoint is paused: the dashboard says so.
    await expect
      .poll(async () => (await failing.browser.get("/api/employer/webhook")).json().health.state)
      .toBe("paused");
    const { health } = (await failing.browser.get("/api/employer/webhook")).json();
    expect(health.consecutiveFailures).toBeGreaterThanOrEqual(WEBHOOK_FAIRNESS.breakerOpensAfter);
    expect(Date.parse(health.pausedUntil)).toBeGreaterThan(t.clock.now().getTime());
    await t.app.deps.background.idle();
    // While paused, the rest of its queue waits untried (at most 4 were in flight when it opened).
    const untried = async () =>
      (
        await t.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.organisationId, failing.org.id))
      ).filter((d) => d.attempts === 0).length;
    expect(await untried()).toBeGreaterThanOrEqual(
      12 - WEBHOOK_FAIRNESS.breakerOpensAfter - WEBHOOK_FAIRNESS.perEndpoint,
    );
    const triedWhilePaused = receiver.received.length;

    // "Send test event" goes out at once all the same; its success closes the breaker and the queue resumes.
    receiver.statuses = [];
    expect((await failing.browser.post("/api/employer/webhook/test")).statusCode).toBe(202);
    const got = await receiver.waitFor(triedWhilePaused + 1, 2_000);
    expect(JSON.parse(got[triedWhilePaused]!.body).type).toBe("webhook.test");
    await expect.poll(untried).toBe(0);
    expect((await failing.browser.get("/api/employer/webhook")).json().health).toEqual({
      state: "healthy",
      consecutiveFailures: 0,
      pausedUntil: null,
    });
  });

  it("gives a receiver that answers fast one more delivery in flight per answer, and halves that after a slow one", async () => {
    const holding = await new HoldingReceiver().start();
    try {
      const org = await employerWithWebhook(holding.url);
      const share = async () =>
        (
          await t.database.db
            .select({ cap: webhookEndpoints.inFlightCap })
            .from(webhookEndpoints)
            .where(eq(webhookEndpoints.organisationId, org.org.id))
        )[0]?.cap;
      for (let i = 0; i < 30; i++) await report(org.org.domain, `report ${i}`);

      // 4 at first: while they are out, no worker gets another of its deliveries.
      await expect.poll(() => holding.held.length).toBe(WEBHOOK_FAIRNESS.perEndpoint);
      expect(await claimDeliveries(t.app.deps, 10)).toEqual([]);
      // Each fast answer adds one (the test's clock does not move, so every answer is fast): 8, then 16.
      holding.answerAll(200);
      await expect.poll(() => holding.held.length).toBe(8);
      expect(await share()).toBe(8);
      expect(await claimDeliveries(t.app.deps, 10)).toEqual([]);
      holding.answerAll(200);
      await expect.poll(() => holding.held.length).toBe(16);
      expect(await share()).toBe(16);

      // Answers slower than fastMs (delivered all the same) halve it: never below 4.
      t.clock.advance(WEBHOOK_FAIRNESS.fastMs + 1);
      holding.answerAll(200);
      await expect.poll(() => holding.held.length).toBe(2);
      holding.answerAll(200);
      await expect
        .poll(async () => (await t.database.db.select().from(webhookDeliveries)).every((d) => d.status === "delivered"))
        .toBe(true);
      expect(await share()).toBeLessThanOrEqual(8);
      expect(await share()).toBeGreaterThanOrEqual(WEBHOOK_FAIRNESS.perEndpoint);
      expect(holding.received).toBe(30);

      // Saving the endpoint again starts it from 4.
      await org.browser.request("PUT", "/api/employer/webhook", { url: holding.url });
      expect(await share()).toBe(WEBHOOK_FAIRNESS.perEndpoint);
    } finally {
      await holding.stop();
    }
  });

  it("a delivery in flight when its endpoint is removed stays failed, whatever the receiver answers", async () => {
    const holding = await new HoldingReceiver().start();
    try {
      const org = await employerWithWebhook(holding.url);
      await report(org.org.domain, "in flight");
      await expect.poll(() => holding.held.length).toBe(1);
      expect((await org.browser.request("DELETE", "/api/employer/webhook")).statusCode).toBe(200);
      // An answer that would have been retried: the delivery is not brought back to the queue.
      holding.answerAll(500);
      await t.app.deps.background.idle();
      const [delivery] = await t.database.db
        .select()
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.organisationId, org.org.id));
      expect(delivery).toMatchObject({ status: "failed", lastError: "the endpoint was removed", lockedUntil: null });
    } finally {
      await holding.stop();
    }
  });

  it("pauses 1 minute at first, doubling with each further failure, at most an hour", () => {
    expect([5, 6, 7, 10, 11, 12, 50].map((n) => pauseMs(n) / 60_000)).toEqual([1, 2, 4, 32, 60, 60, 60]);
  });

  it("saving the endpoint again closes its breaker", async () => {
    const failing = await employerWithWebhook(receiver.url);
    receiver.statuses = Array(50).fill(503);
    for (let i = 0; i < 6; i++) await report(failing.org.domain, `report ${i}`);
    await expect
      .poll(async () => (await failing.browser.get("/api/employer/webhook")).json().health.state)
      .toBe("paused");
    // A moment later, as on a real clock: an attempt still in flight belongs to the endpoint as it was saved before.
    t.clock.advance(1);
    await failing.browser.request("PUT", "/api/employer/webhook", { url: receiver.url });
    expect((await failing.browser.get("/api/employer/webhook")).json().health.state).toBe("healthy");
    await t.app.deps.background.idle();
    expect((await failing.browser.get("/api/employer/webhook")).json().health.state).toBe("healthy");
  });

  it("a pause decided before the endpoint was saved again does not land after it", async () => {
    const org = await employerWithWebhook(receiver.url);
    const health = async () => (await org.browser.get("/api/employer/webhook")).json().health.state;
    const until = new Date(t.clock.now().getTime() + 60_000);
    const opens = WEBHOOK_FAIRNESS.breakerOpensAfter;
    // The failures that decided it were counted; the endpoint was saved again (count 0) before the pause ran.
    await pauseEndpoint(t.app.deps.db, org.org.id, until, opens);
    expect(await health()).toBe("healthy");
    // With the failures still counted, the same pause lands.
    await t.database.db
      .update(webhookEndpoints)
      .set({ consecutiveFailures: opens })
      .where(eq(webhookEndpoints.organisationId, org.org.id));
    await pauseEndpoint(t.app.deps.db, org.org.id, until, opens);
    expect(await health()).toBe("paused");
  });
});
