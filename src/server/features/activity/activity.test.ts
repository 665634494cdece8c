import { generate, signedInEmployee, signInAdmin, TRUST_PROXY_ENV, verify } from "@test/fixtures";
import { buildTestApp, createUser, signedIn, type TestApp } from "@test/helpers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

let t: TestApp;
beforeEach(async () => {
  // Noon UTC on a known day, so "today" and "30 days" are the same on every run.
  t = await buildTestApp({ env: TRUST_PROXY_ENV });
  t.clock.set(Date.parse("2026-11-22T12:00:00Z"));
});
afterEach(async () => {
  await t?.close();
});

function report(body: object, origin: string) {
  return t.app.inject({
    method: "POST",
    url: "/api/reports",
    headers: { "content-type": "application/json", origin },
    payload: JSON.stringify(body),
  });
}

describe("GET /api/employer/activity", () => {
  it("counts per UTC day, for 30 days, oldest first, every day present", async () => {
    const { organisation, browser: employee } = await signedInEmployee(t);
    const boss = await createUser(t, { organisationId: organisation.id, role: "superuser" });
    const browser = await signedIn(t, boss);
    const site = `https://www.${organisation.domain}`;

    // Yesterday: two codes, one verified on the site; one failed look-up on the site and one elsewhere.
    t.clock.set(Date.parse("2026-11-21T09:00:00Z"));
    const a = await generate(employee);
    await generate(employee);
    await verify(t, a.words.join(" "), { origin: site });
    await verify(t, "not three words", { origin: `https://shop.${organisation.domain}` });
    await verify(t, a.words.join(" "), { origin: "https://elsewhere.example" });
    await report({ note: "a scam" }, site);
    // 40 days ago: outside the window.
    t.clock.set(Date.parse("2026-10-13T09:00:00Z"));
    await generate(employee);
    t.clock.set(Date.parse("2026-11-22T12:00:00Z"));

    const res = await browser.get("/api/employer/activity");
    expect(res.statusCode).toBe(200);
    const days = res.json();
    expect(days).toHaveLength(30);
    expect(days[0].day).toBe("2026-10-24");
    expect(days[29]).toEqual({ day: "2026-11-22", generated: 0, verified: 0, failedLookups: 0, reports: 0 });
    expect(days[28]).toEqual({ day: "2026-11-21", generated: 2, verified: 1, failedLookups: 1, reports: 1 });
    expect(days.slice(0, 28).every((d: { generated: number }) => d.generated === 0)).toBe(true);
  });

  it("is for superusers (own organisation) and admins (?organisationId)", async () => {
    const { organisation, browser: employee } = await signedInEmployee(t);
    await generate(employee);
    expect((await employee.get("/api/employer/activity")).statusCode).toBe(403);
    const { browser: admin } = await signInAdmin(t);
    const mine = (await admin.get(`/api/employer/activity?organisationId=${organisation.id}`)).json();
    expect(mine[29].generated).toBe(1);
    expect((await admin.get("/api/employer/activity")).json()[29].generated).toBe(0);
    expect((await admin.get("/api/employer/activity?organisationId=x")).statusCode).toBe(400);
  });
});
