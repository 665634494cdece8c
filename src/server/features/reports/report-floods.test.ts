import { callReports } from "@server/db/schema";
import { REPORTS_PER_HOUR, REPORTS_TEXT } from "@shared/reports";
import { createEmployer, signInAdmin, TRUST_PROXY_ENV } from "@test/fixtures";
import { buildTestApp, signedIn, type TestApp } from "@test/helpers";
import { count, isNull, sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { REPORTS_PER_DESTINATION_DAY, REPORTS_PER_NETWORK_HOUR } from "./service";

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp({ env: TRUST_PROXY_ENV });
});
afterEach(async () => {
  await t?.close();
});

/** A report as a client at `ip` sends it, with whatever Origin it claims. */
function report(body: unknown, opts: { ip: string; origin?: string }) {
  return t.app.inject({
    method: "POST",
    url: "/api/reports",
    headers: {
      "content-type": "application/json",
      "x-forwarded-for": opts.ip,
      ...(opts.origin ? { origin: opts.origin } : {}),
    },
    payload: JSON.stringify(body),
  });
}

const storedReports = async (where = sql`true`) =>
  (await t.database.db.select({ n: count() }).from(callReports).where(where))[0]?.n ?? 0;

let networkSeq = 0;
/** An IPv6 /48 of its own: `2001:db8:<n>::/48`. */
const network48 = () => `2001:db8:${(++networkSeq).toString(16)}`;

describe("the report channel cannot be silenced or filled with fakes", () => {
  it("500 forged reports from 100 /64s of one /48 leave a report from another address accepted and listed", async () => {
    const flooder = network48();
    const answers: number[] = [];
    // 100 /64s inside one /48 (2001:db8:n:0::/64 … 2001:db8:n:63::/64), 5 reports each, with a spoofed Origin.
    for (let subnet = 0; subnet < 100; subnet++) {
      for (let i = 0; i < 5; i++) {
        const res = await report(
          { callerNumber: "+44 20 7946 0000", note: `forged ${subnet}/${i}` },
          { ip: `${flooder}:${subnet.toString(16)}::${i + 1}`, origin: "https://www.bigbank.example" },
        );
        answers.push(res.statusCode);
      }
    }
    // The /48 gets its own budget, whatever its /64s: the rest of the flood is refused and stored nowhere.
    expect(answers.filter((s) => s === 201)).toHaveLength(REPORTS_PER_NETWORK_HOUR);
    expect(answers.filter((s) => s === 429)).toHaveLength(500 - REPORTS_PER_NETWORK_HOUR);
    expect(await storedReports()).toBe(REPORTS_PER_NETWORK_HOUR);

    // A customer elsewhere, on the product's own site, is heard.
    const real = await report({ note: "a real customer" }, { ip: `${network48()}::7`, origin: t.config.publicOrigin });
    expect(real.statusCode).toBe(201);
    const { browser: admin } = await signInAdmin(t);
    const listed = (await admin.get("/api/admin/reports")).json();
    expect(listed.total).toBe(REPORTS_PER_NETWORK_HOUR + 1);
    expect(listed.items[0]).toMatchObject({ note: "a real customer", unverifiedOrigin: false });
    // The forged ones are marked.
    expect(listed.items.slice(1).every((r: { unverifiedOrigin: boolean }) => r.unverifiedOrigin)).toBe(true);
  });

  it("a full destination sheds the heaviest network first: never closed for everyone, storage bounded", async () => {
    const employer = await createEmployer(t);
    const origin = `https://${employer.org.domain}`;
    // The day's budget already full: 50 flooding networks sent 20 reports each (as stored before).
    const at = t.clock.now().toISOString();
    await t.database.db.execute(sql`
      insert into call_reports (at, organisation_id, site, note, source)
      select ${at}::timestamptz, ${employer.org.id}::int, ${employer.org.domain}, 'flood ' || g,
        '2001:db8:f' || (g % 50) || '::/48'
      from generate_series(1, ${REPORTS_PER_DESTINATION_DAY}::int) g`);
    const flooding = `2001:db8:f7`;
    expect(await storedReports()).toBe(REPORTS_PER_DESTINATION_DAY);

    // One more from a flooding network is refused: it is among the heaviest.
    expect((await report({ note: "more flood" }, { ip: `${flooding}:1::1`, origin })).statusCode).toBe(429);
    // Customers from anywhere else get through (IPv4 and IPv6), each in place of a flooding network's report.
    for (const ip of ["203.0.113.9", `${network48()}::1`, "198.51.100.20"]) {
      const res = await report({ note: `customer at ${ip}` }, { ip, origin });
      expect(res.statusCode, res.body).toBe(201);
    }
    expect(await storedReports()).toBe(REPORTS_PER_DESTINATION_DAY);
    const browser = await signedIn(t, employer.user);
    const listed = (await browser.get("/api/employer/reports")).json();
    expect(listed.items.slice(0, 3).map((r: { note: string }) => r.note)).toEqual([
      "customer at 198.51.100.20",
      expect.stringMatching(/^customer at 2001:db8:/),
      "customer at 203.0.113.9",
    ]);
    expect(listed.items[0].unverifiedOrigin).toBe(false);
    // The admins' queue is a destination of its own, untouched.
    expect(await storedReports(isNull(callReports.organisationId))).toBe(0);
    // A day later the window has moved on.
    t.clock.advance(24 * 3_600_000 + 1);
    expect((await report({ note: "the next day" }, { ip: `${flooding}:2::1`, origin })).statusCode).toBe(201);
  });

  it('marks a report whose Origin is not an https site of a registered organisation "unverified origin"', async () => {
    const employer = await createEmployer(t);
    const ip = () => `${network48()}::1`;
    await report({ note: "from the organisation's site" }, { ip: ip(), origin: `https://${employer.org.domain}` });
    await report({ note: "from an unknown site" }, { ip: ip(), origin: "https://bigbank.example" });
    await report({ note: "without an Origin" }, { ip: ip() });
    await report({ note: "over http" }, { ip: ip(), origin: `http://${employer.org.domain}` });
    await report({ note: "from CallProof" }, { ip: ip(), origin: t.config.publicOrigin });

    const browser = await signedIn(t, employer.user);
    expect((await browser.get("/api/employer/reports")).json().items).toEqual([
      expect.objectContaining({ note: "from the organisation's site", unverifiedOrigin: false }),
    ]);
    const csv = (await browser.get("/api/employer/reports.csv")).body.split("\r\n");
    expect(csv[0]).toContain(REPORTS_TEXT.columns.origin);
    expect(csv[1]).toContain(REPORTS_TEXT.verifiedOrigin);

    const { browser: admin } = await signInAdmin(t);
    const marks = Object.fromEntries(
      (await admin.get("/api/admin/reports"))
        .json()
        .items.map((r: { note: string; unverifiedOrigin: boolean }) => [r.note, r.unverifiedOrigin]),
    );
    expect(marks).toEqual({
      "from an unknown site": true,
      "without an Origin": true,
      "over http": true,
      "from CallProof": false,
    });
    expect(REPORTS_PER_HOUR).toBe(5);
  });
});
