import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { REPORT_FIELDS, REPORT_FORM_TEXT, REPORTS_TEXT } from "@shared/reports";
import { auditRows, createEmployer, freshIp, signedInEmployee, signInAdmin, TRUST_PROXY_ENV } from "@test/fixtures";
import { buildTestApp, signedIn, type TestApp } from "@test/helpers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mailDueReportSummaries, REPORT_MAIL_GAP_MS } from "./service";

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp({ env: TRUST_PROXY_ENV });
});
afterEach(async () => {
  await t?.close();
});

/** A report as the widget sends it from a page of `origin`: no cookies, no CSRF token. */
function report(body: unknown, opts: { origin?: string; ip?: string } = {}) {
  return t.app.inject({
    method: "POST",
    url: "/api/reports",
    headers: {
      "content-type": "application/json",
      "x-forwarded-for": opts.ip ?? freshIp(),
      ...(opts.origin ? { origin: opts.origin } : {}),
    },
    payload: JSON.stringify(body),
  });
}

async function superuser() {
  const employer = await createEmployer(t);
  const browser = await signedIn(t, employer.user);
  return { ...employer, browser };
}

describe("POST /api/reports", () => {
  it("reaches the organisation whose verified site the widget runs on, with the same answer as any other", async () => {
    const { org, browser } = await superuser();
    const fromSite = await report(
      { callerNumber: "+44 20 7946 0000", claimedName: "Dave from the bank", note: "my card PIN" },
      { origin: `https://shop.${org.domain}` },
    );
    expect(fromSite.statusCode).toBe(201);
    expect(fromSite.json()).toEqual({ message: REPORT_FORM_TEXT.sent });
    expect(fromSite.headers["access-control-allow-origin"]).toBe("*");
    expect(fromSite.headers["access-control-allow-credentials"]).toBeUndefined();
    expect(fromSite.headers["set-cookie"]).toBeUndefined();

    const fromProduct = await report({ callerNumber: "0800 123" }, { origin: t.config.publicOrigin });
    const fromStranger = await report({ note: "asked for my password" }, { origin: "https://unknown.example" });
    const withoutOrigin = await report({ claimedName: "HMRC" });
    for (const res of [fromProduct, fromStranger, withoutOrigin]) {
      expect(res.statusCode).toBe(201);
      expect(res.json()).toEqual(fromSite.json());
    }

    const mine = await browser.get("/api/employer/reports");
    expect(mine.statusCode).toBe(200);
    expect(mine.json()).toMatchObject({
      total: 1,
      items: [
        {
          site: `shop.${org.domain}`,
          callerNumber: "+44 20 7946 0000",
          claimedName: "Dave from the bank",
          note: "my card PIN",
          at: t.clock.now().toISOString(),
        },
      ],
    });

    const { browser: admin } = await signInAdmin(t);
    const unrouted = (await admin.get("/api/admin/reports")).json();
    expect(unrouted.total).toBe(3);
    expect(unrouted.items.map((r: { site: string | null }) => r.site)).toEqual([
      null,
      "unknown.example",
      new URL(t.config.publicOrigin).hostname,
    ]);
    // The admin sees one organisation's reports when naming it.
    expect((await admin.get(`/api/employer/reports?organisationId=${org.id}`)).json().total).toBe(1);

    const audit = await auditRows(t, AUDIT_ACTIONS.reportCall);
    expect(audit).toHaveLength(4);
    expect(JSON.stringify(audit)).not.toContain("PIN");
  });

  it("does not route to a site that is still pending, nor over plain http", async () => {
    const employer = await createEmployer(t, { website: "https://www.other-brand.example" });
    const browser = await signedIn(t, employer.user);
    await report({ note: "x" }, { origin: `http://${employer.org.domain}` });
    await report({ note: "y" }, { origin: "https://www.other-brand.example" });
    expect((await browser.get("/api/employer/reports")).json().total).toBe(0);
    await report({ note: "z" }, { origin: `https://${employer.org.domain}` });
    expect((await browser.get("/api/employer/reports")).json().total).toBe(1);
  });

  it("sends reports for an organisation an admin deactivated to the admins", async () => {
    const employer = await createEmployer(t);
    const { browser: admin } = await signInAdmin(t);
    expect((await admin.post(`/api/admin/deactivate-employer/${employer.user.id}`)).statusCode).toBe(200);
    expect((await report({ note: "still calling" }, { origin: `https://${employer.org.domain}` })).statusCode).toBe(
      201,
    );
    const unrouted = (await admin.get("/api/admin/reports")).json();
    expect(unrouted.items).toEqual([expect.objectContaining({ note: "still calling" })]);
  });

  it("refuses an empty report, over-long fields and control characters, and stores nothing", async () => {
    const cases: Array<[unknown, string]> = [
      [{}, REPORT_FORM_TEXT.empty],
      [{ callerNumber: "   ", note: "" }, REPORT_FORM_TEXT.empty],
      [{ note: "x".repeat(501) }, REPORTS_TEXT.tooLong(REPORT_FIELDS.note)],
      [{ claimedName: "Bank\u0000" }, REPORTS_TEXT.controlCharacters(REPORT_FIELDS.claimedName)],
      [{ callerNumber: "123\u202Eevil" }, REPORTS_TEXT.controlCharacters(REPORT_FIELDS.callerNumber)],
      [{ note: "line\nbreak" }, REPORTS_TEXT.controlCharacters(REPORT_FIELDS.note)],
      [{ note: 42 }, ""],
      ["not an object", ""],
    ];
    for (const [body, message] of cases) {
      const res = await report(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      if (message) expect(res.json().message).toContain(message);
    }
    const { browser } = await signInAdmin(t);
    expect((await browser.get("/api/admin/reports")).json().total).toBe(0);
    // A field of exactly 500 characters, trimmed, is fine.
    expect((await report({ note: ` ${"é".repeat(500)} ` })).statusCode).toBe(201);
  });

  it("takes at most 5 reports per client IP per hour, then 429 with Retry-After", async () => {
    const ip = freshIp();
    for (let i = 0; i < 5; i++) expect((await report({ note: `call ${i}` }, { ip })).statusCode).toBe(201);
    const refused = await report({ note: "sixth" }, { ip });
    expect(refused.statusCode).toBe(429);
    expect(refused.json().message).toBe(REPORT_FORM_TEXT.tooMany);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(3500);
    // Refused input does not count: a bad report from a fresh IP leaves its five.
    const other = freshIp();
    expect((await report({}, { ip: other })).statusCode).toBe(400);
    for (let i = 0; i < 5; i++) expect((await report({ note: `n ${i}` }, { ip: other })).statusCode).toBe(201);
    t.clock.advance(3_600_000);
    expect((await report({ note: "an hour later" }, { ip })).statusCode).toBe(201);
  });

  it("answers the widget's CORS preflight", async () => {
    const res = await t.app.inject({
      method: "OPTIONS",
      url: "/api/reports",
      headers: { origin: "https://any.example", "access-control-request-method": "POST" },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers["access-control-allow-origin"]).toBe("*");
  });
});

describe("GET /api/employer/reports", () => {
  it("pages newest first and searches by number, digits only or as typed", async () => {
    const { org, browser } = await superuser();
    const origin = `https://${org.domain}`;
    for (let i = 0; i < 12; i++) {
      await report({ callerNumber: `+44 (0)20 7946 ${String(i).padStart(4, "0")}` }, { origin });
      t.clock.advance(1000);
    }
    const first = (await browser.get("/api/employer/reports?page=1")).json();
    expect(first).toMatchObject({ total: 12, pages: 2 });
    expect(first.items[0].callerNumber).toBe("+44 (0)20 7946 0011");
    const found = (await browser.get(`/api/employer/reports?q=${encodeURIComponent("20 7946 0003")}`)).json();
    expect(found.items.map((r: { callerNumber: string }) => r.callerNumber)).toEqual(["+44 (0)20 7946 0003"]);
    expect((await browser.get("/api/employer/reports?q=%25")).json().total).toBe(0);
    expect((await browser.get("/api/employer/reports?page=0")).statusCode).toBe(400);
  });

  it("is for superusers and admins only; an employee gets 403", async () => {
    const { browser } = await superuser();
    expect((await browser.get("/api/admin/reports")).statusCode).toBe(403);
    const { browser: employee } = await signedInEmployee(t);
    expect((await employee.get("/api/employer/reports")).statusCode).toBe(403);
    expect((await employee.get("/api/employer/reports.csv")).statusCode).toBe(403);
    const anonymous = await t.app.inject({ method: "GET", url: "/api/employer/reports" });
    expect(anonymous.statusCode).toBe(401);
  });

  it("exports CSV that a spreadsheet cannot take for formulas", async () => {
    const { org, browser } = await superuser();
    await report(
      { callerNumber: '=HYPERLINK("http://evil")', claimedName: '+"quoted"', note: "@SUM(1)" },
      { origin: `https://${org.domain}` },
    );
    const res = await browser.get("/api/employer/reports.csv");
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/csv/);
    expect(res.headers["content-disposition"]).toContain("attachment");
    const [, row] = res.body.split("\r\n");
    expect(row).toContain(`"'=HYPERLINK(""http://evil"")"`);
    expect(row).toContain(`"'+""quoted"""`);
    expect(row).toContain(`"'@SUM(1)"`);
  });
});

describe("reported-calls summary mail", () => {
  it("tells the superusers at once, then at most once per 10 minutes, without the reporter's words", async () => {
    const { org, user } = await superuser();
    const origin = `https://${org.domain}`;
    const before = t.mail.to(user.email).length;
    await report({ note: "click http://phish.example now" }, { origin });
    const first = await t.mail.waitFor(user.email, (m) => m.subject.includes("reported"), before);
    expect(first.subject).toBe(`1 call reported in the name of ${org.companyName}`);
    expect(first.text).toContain("/employer-dashboard/fraud");
    expect(first.text).not.toContain("phish");

    // Two more within the 10 minutes: held back, then summarised together by the job.
    await report({ note: "second" }, { origin });
    await report({ note: "third" }, { origin });
    await mailDueReportSummaries(t.app.deps);
    await t.app.deps.background.idle();
    expect(t.mail.to(user.email).length).toBe(before + 1);
    t.clock.advance(REPORT_MAIL_GAP_MS);
    await mailDueReportSummaries(t.app.deps);
    const second = await t.mail.waitFor(user.email, (m) => m.subject.startsWith("2 calls"), before + 1);
    expect(second.subject).toBe(`2 calls reported in the name of ${org.companyName}`);
    await mailDueReportSummaries(t.app.deps);
    expect(t.mail.to(user.email).length).toBe(before + 2);
  });
});
