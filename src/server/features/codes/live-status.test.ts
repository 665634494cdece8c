import type { Database } from "@server/db/client";
import { CODES_TEXT, type CodeStatus } from "@shared/codes";
import { openEventStream } from "@test/event-stream";
import { generate, signedInEmployee, verify } from "@test/fixtures";
import { buildTestApp, openAgain, type TestApp } from "@test/helpers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp({ listen: true });
});
afterEach(async () => {
  await t?.close();
});

/** Opens a code's event stream over real HTTP with a browser's cookies and collects its events. */
function openStream(base: string, id: number, cookie: string) {
  return openEventStream<CodeStatus>(`${base}/api/codes/${id}/events`, { cookie });
}

describe("GET /api/codes/:id", () => {
  it("is live after generation, verified with the time and site after a look-up, for its owner only", async () => {
    const { browser, organisation } = await signedInEmployee(t);
    const code = await generate(browser);
    expect(code.id).toEqual(expect.any(Number));

    const live = await browser.get(`/api/codes/${code.id}`);
    expect(live.statusCode).toBe(200);
    expect(live.json()).toEqual({
      id: code.id,
      status: "live",
      expiresAt: code.expiresAt,
      verifiedAt: null,
      site: null,
    });

    const site = `https://www.${organisation.domain}`;
    expect((await verify(t, code.words.join(" "), { origin: site })).json()).toMatchObject({ verified: true });
    expect((await browser.get(`/api/codes/${code.id}`)).json()).toEqual({
      id: code.id,
      status: "verified",
      expiresAt: code.expiresAt,
      verifiedAt: t.clock.now().toISOString(),
      site: `www.${organisation.domain}`,
    });

    // Somebody else's code is as unknown as a code that does not exist.
    const { browser: other } = await signedInEmployee(t);
    for (const url of [`/api/codes/${code.id}`, `/api/codes/${code.id}/events`, "/api/codes/999999"]) {
      const res = await other.get(url);
      expect(res.statusCode).toBe(404);
      expect(res.json().message).toBe(CODES_TEXT.codeNotFound);
    }
  });

  it("is expired once its minute is over unverified; a look-up without Origin verifies with no site", async () => {
    const { browser } = await signedInEmployee(t);
    const stale = await generate(browser);
    t.clock.advance(60_000);
    expect((await browser.get(`/api/codes/${stale.id}`)).json()).toMatchObject({ status: "expired", verifiedAt: null });

    const code = await generate(browser);
    await verify(t, code.words.join(" "));
    expect((await browser.get(`/api/codes/${code.id}`)).json()).toMatchObject({ status: "verified", site: null });
  });

  it("refuses bad ids and anonymous callers", async () => {
    const { browser } = await signedInEmployee(t);
    expect((await browser.get("/api/codes/abc")).statusCode).toBe(400);
    expect((await browser.get("/api/codes/0")).statusCode).toBe(400);
    const code = await generate(browser);
    const anonymous = await t.app.inject({ method: "GET", url: `/api/codes/${code.id}` });
    expect(anonymous.statusCode).toBe(401);
  });
});

describe("GET /api/codes/:id/events", () => {
  let second: { app: TestApp; database: Database | null } | null = null;
  afterEach(async () => {
    await second?.app.close();
    await second?.database?.close();
    second = null;
  });

  it("streams `verified` within a second of a look-up answered by another app instance on the same database", async () => {
    const { browser, organisation } = await signedInEmployee(t);
    const code = await generate(browser);
    // The other instance has its own connections (on PostgreSQL, its own pool and LISTEN connection).
    const database = await openAgain(t.database);
    second = { app: await buildTestApp({ database: database ?? t.database, clock: t.clock }), database };

    const stream = await openStream(t.url, code.id, browser.cookieHeader());
    expect(stream.res.status).toBe(200);
    expect(stream.res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect((await stream.next("live"))?.data.status).toBe("live");

    const sent = performance.now();
    const answer = await verify(second.app, code.words.join(" "), { origin: `https://${organisation.domain}` });
    expect(answer.json()).toMatchObject({ verified: true });
    const event = await stream.next("verified");
    expect(event?.data).toMatchObject({ id: code.id, status: "verified", site: organisation.domain });
    expect(event!.at - sent).toBeLessThan(1000);
    // The stream ends after the final state, so the page stops listening.
    await stream.next("never");
    expect(stream.ended).toBe(true);
    await stream.close();
  });

  it("gives the final state at once to a stream opened (or reopened) after it", async () => {
    const { browser } = await signedInEmployee(t);
    const code = await generate(browser);
    await verify(t, code.words.join(" "));
    const reopened = await openStream(t.url, code.id, browser.cookieHeader());
    expect((await reopened.next("verified"))?.data.status).toBe("verified");
    await reopened.next("never");
    expect(reopened.events.map((e) => e.event)).toEqual(["verified"]);

    const stale = await generate(browser);
    t.clock.advance(60_000);
    const late = await openStream(t.url, stale.id, browser.cookieHeader());
    expect((await late.next("expired"))?.data.status).toBe("expired");
    await late.close();
  });

  it("is refused to anybody but the code's owner", async () => {
    const { browser } = await signedInEmployee(t);
    const code = await generate(browser);
    const anonymous = await fetch(`${t.url}/api/codes/${code.id}/events`);
    expect(anonymous.status).toBe(401);
    const { browser: other } = await signedInEmployee(t);
    const stranger = await fetch(`${t.url}/api/codes/${code.id}/events`, { headers: { cookie: other.cookieHeader() } });
    expect(stranger.status).toBe(404);
  });

  it("ends open streams when the server stops, so a graceful stop is not held up", async () => {
    const { browser } = await signedInEmployee(t);
    const code = await generate(browser);
    const stream = await openStream(t.url, code.id, browser.cookieHeader());
    await stream.next("live");
    // Without ending the stream, close() would wait for it: the test would time out.
    await t.app.close();
    await stream.next("never");
    expect(stream.ended).toBe(true);
  });
});
