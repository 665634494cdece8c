import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { organisationSites } from "@server/db/schema";
import { parseOutboundPolicy } from "@server/lib/outbound";
import { MESSAGES } from "@shared/messages";
import { SITE_PROOF, SITES_MESSAGES, type SiteRecord } from "@shared/sites";
import { TestDnsServer } from "@test/dns-server";
import {
  anonymous,
  auditRows,
  counters,
  createEmployee,
  createEmployer,
  signInAdmin,
  storeCode,
  verify,
} from "@test/fixtures";
import { buildTestApp, GOOD_PASSWORD, signedIn, type signIn, type TestApp, uniqueEmail } from "@test/helpers";
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { sitesDeps } from "./deps";
import { siteProver } from "./prover";
import { recheckSites } from "./service";

const NOT_VERIFIED = { verified: false, message: MESSAGES.codeNotVerified };

/** A loopback web server answering the well-known file per Host header from `files`. */
class FileServer {
  readonly files = new Map<string, { status: number; body: string; location?: string }>();
  private server: Server = createServer((req, res) => {
    const host = (req.headers.host ?? "").replace(/:\d+$/, "");
    const file = req.url === SITE_PROOF.filePath ? this.files.get(host) : undefined;
    if (!file) {
      res.writeHead(404).end("not found");
      return;
    }
    res.writeHead(file.status, file.location ? { location: file.location } : { "content-type": "text/plain" });
    res.end(file.body);
  });
  port = 0;

  async start() {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  close() {
    return new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

let dns: TestDnsServer;
let files: FileServer;
let t: TestApp;

beforeAll(async () => {
  [dns, files] = await Promise.all([new TestDnsServer().start(), new FileServer().start()]);
});
afterAll(async () => {
  await Promise.all([dns?.close(), files?.close()]);
});
beforeEach(async () => {
  dns.clear();
  files.files.clear();
  t = await buildTestApp({
    env: { NODE_ENV: "test", SITE_DNS_SERVERS: dns.address, SITE_CHECK_TEST_HTTP_PORT: String(files.port) },
  });
});
afterEach(async () => {
  await t?.close();
});

/** An active employer whose organisation's website (outside its e-mail domain) is not proved. */
async function employerWithForeignWebsite() {
  const n = Math.random().toString(36).slice(2, 8);
  const domain = `acme-${n}.example`;
  const websiteHost = `www.bigbank-${n}.example`;
  const { org, user } = await createEmployer(t, { domain, website: `https://${websiteHost}`, companyName: "Acme" });
  const employee = await createEmployee(t, org.id, domain, { fullName: "Ann Caller" });
  const browser = await signedIn(t, user);
  return { org, user, employee, browser, domain, websiteHost };
}

const sitesOf = async (browser: Awaited<ReturnType<typeof signIn>>) =>
  (await browser.get("/api/employer/sites")).json() as SiteRecord[];

describe("an organisation's sites", () => {
  it("start with the e-mail domain verified and a foreign website pending, with a token for each proof", async () => {
    const { browser, domain, websiteHost } = await employerWithForeignWebsite();
    const sites = await sitesOf(browser);
    expect(sites.map((s) => [s.host, s.status, s.method])).toEqual([
      [domain, "verified", "email-domain"],
      [websiteHost, "pending", null],
    ]);
    expect(sites[1]?.token).toMatch(/^[0-9a-f]{32}$/);
    expect(sites[0]?.token).not.toBe(sites[1]?.token);
  });

  it("a code does not verify on an unproved website, is not used up, and the card hides that website", async () => {
    const { employee, websiteHost, domain } = await employerWithForeignWebsite();
    const typed = await storeCode(t, employee.id);
    const res = await verify(t, typed, { origin: `https://${websiteHost}` });
    expect(res.json()).toEqual(NOT_VERIFIED);
    const subdomain = await verify(t, typed, { origin: `https://login.${websiteHost}` });
    expect(subdomain.json()).toEqual(NOT_VERIFIED);
    expect(await counters(t, employee.id)).toEqual({ generated: 0, verified: 0 });
    // Still good on the organisation's proved e-mail domain; the card does not vouch for the website.
    const own = await verify(t, typed, { origin: `https://${domain}` });
    expect(own.json()).toEqual({
      verified: true,
      caller: { fullName: "Ann Caller", companyName: "Acme", website: "" },
    });
  });

  it("a DNS record served by a real DNS server proves the website: codes then verify there", async () => {
    const { employee, browser, websiteHost } = await employerWithForeignWebsite();
    const site = (await sitesOf(browser)).find((s) => s.host === websiteHost);
    if (!site) throw new Error("website site missing");

    const early = await browser.post("/api/employer/sites/check", { host: websiteHost });
    expect(early.json()).toEqual({ host: websiteHost, status: "pending", method: null });

    dns.setTxt(SITE_PROOF.dnsName(websiteHost), ["v=spf1 -all", SITE_PROOF.dnsValue(site.token)]);
    const checked = await browser.post("/api/employer/sites/check", { host: websiteHost });
    expect(checked.statusCode).toBe(200);
    expect(checked.json()).toEqual({ host: websiteHost, status: "verified", method: "dns" });

    const typed = await storeCode(t, employee.id);
    const res = await verify(t, typed, { origin: `https://shop.${websiteHost}` });
    expect(res.json()).toEqual({
      verified: true,
      caller: { fullName: "Ann Caller", companyName: "Acme", website: `https://${websiteHost}` },
    });
    expect((await auditRows(t, "site.check")).map((r) => r.outcome)).toEqual(["success", "failure"]);
  });

  it("a record with another token, or for another host, proves nothing", async () => {
    const { browser, websiteHost } = await employerWithForeignWebsite();
    dns.setTxt(SITE_PROOF.dnsName(websiteHost), [SITE_PROOF.dnsValue("0".repeat(32))]);
    dns.setTxt(websiteHost, [SITE_PROOF.dnsValue((await sitesOf(browser))[1]?.token ?? "")]);
    const checked = await browser.post("/api/employer/sites/check", { host: websiteHost });
    expect(checked.json()).toMatchObject({ status: "pending" });
  });

  it("the well-known file (over http to loopback in test mode) proves a host", async () => {
    const { employee, browser } = await employerWithForeignWebsite();
    const host = `help.partner-${Math.random().toString(36).slice(2, 8)}.example`;
    const added = await browser.post("/api/employer/sites", { host: `https://${host}/faq` });
    expect(added.statusCode).toBe(201);
    const site = added.json() as SiteRecord;
    expect(site).toMatchObject({ host, status: "pending", method: null });

    dns.setA(host, "127.0.0.1");
    files.files.set(host, { status: 200, body: `# CallProof\n${site.token}\n` });
    const checked = await browser.post("/api/employer/sites/check", { host });
    expect(checked.json()).toEqual({ host, status: "verified", method: "well-known" });
    const typed = await storeCode(t, employee.id);
    expect((await verify(t, typed, { origin: `https://${host}` })).json()).toMatchObject({ verified: true });
  });

  it("the daily re-check notices a removed proof: pending again, audited, the employer told, codes refused", async () => {
    const { user, employee, browser, websiteHost } = await employerWithForeignWebsite();
    const token = (await sitesOf(browser))[1]?.token ?? "";
    dns.setTxt(SITE_PROOF.dnsName(websiteHost), [SITE_PROOF.dnsValue(token)]);
    expect((await browser.post("/api/employer/sites/check", { host: websiteHost })).json()).toMatchObject({
      status: "verified",
    });

    // Within a day nothing is looked up again; a day later the proof is still there: still verified.
    expect(await recheckSites(sitesDeps(t.app))).toEqual([]);
    t.clock.advance(25 * 3_600_000);
    expect(await recheckSites(sitesDeps(t.app))).toEqual([]);
    // (the employer's session has long ended: read the table)
    const stored = async () =>
      (await t.database.db.select().from(organisationSites).where(eq(organisationSites.host, websiteHost)))[0];
    expect(await stored()).toMatchObject({ status: "verified", method: "dns" });

    dns.clear();
    t.clock.advance(25 * 3_600_000);
    expect(await recheckSites(sitesDeps(t.app))).toEqual([websiteHost]);
    expect(await stored()).toMatchObject({ status: "pending", method: null, verifiedAt: null });
    expect((await auditRows(t, "site.proof-lost"))[0]).toMatchObject({
      outcome: "failure",
      organisationId: employee.organisationId,
      target: websiteHost,
    });
    const mail = await t.mail.waitFor(user.email, (m) => m.subject.includes(websiteHost));
    expect(mail.text).toContain(`codes do not verify on ${websiteHost}`);

    const typed = await storeCode(t, employee.id);
    expect((await verify(t, typed, { origin: `https://${websiteHost}` })).json()).toEqual(NOT_VERIFIED);
  });

  it("are added and removed by the employer; the e-mail domain stays; bad hosts are 400", async () => {
    const { browser, domain } = await employerWithForeignWebsite();
    const under = await browser.post("/api/employer/sites", { host: `shop.${domain}` });
    expect(under.json()).toMatchObject({ host: `shop.${domain}`, status: "verified", method: "email-domain" });
    expect((await browser.post("/api/employer/sites", { host: `shop.${domain}` })).statusCode).toBe(409);
    for (const host of ["", "bad host.example", "a,b.example", "127.0.0.1", "localhost", "x".repeat(400)]) {
      const res = await browser.post("/api/employer/sites", { host });
      expect(res.statusCode, host).toBe(400);
    }
    const keep = await browser.request("DELETE", `/api/employer/sites/${domain}`);
    expect(keep.statusCode).toBe(409);
    expect(keep.json().message).toBe(SITES_MESSAGES.emailDomainFixed);
    expect((await browser.request("DELETE", `/api/employer/sites/shop.${domain}`)).statusCode).toBe(200);
    expect((await browser.request("DELETE", `/api/employer/sites/shop.${domain}`)).statusCode).toBe(404);
    expect((await sitesOf(browser)).map((s) => s.host)).not.toContain(`shop.${domain}`);
  });

  it("are for employers: employees and strangers are refused", async () => {
    const { org, domain } = await employerWithForeignWebsite();
    const staff = await createEmployee(t, org.id, domain);
    const employee = await signedIn(t, staff);
    expect((await employee.get("/api/employer/sites")).statusCode).toBe(403);
    expect((await employee.post("/api/employer/sites", { host: "x.example" })).statusCode).toBe(403);
    expect((await anonymous(t).get("/api/employer/sites")).statusCode).toBe(401);
  });

  it("an admin sees websiteVerified in the employer lists and can vouch for a site", async () => {
    const { org, user, websiteHost, employee } = await employerWithForeignWebsite();
    const { browser: admin } = await signInAdmin(t);
    const listed = () =>
      admin
        .get("/api/admin/active-employers")
        .then((r) => (r.json() as Array<{ id: number }>).find((a) => a.id === user.id));
    expect(await listed()).toMatchObject({ organisationId: org.id, websiteVerified: false });
    expect((await admin.get(`/api/employer/sites?organisationId=${org.id}`)).json()).toHaveLength(2);

    const res = await admin.post(`/api/admin/organisations/${org.id}/sites`, { host: websiteHost });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ host: websiteHost, status: "verified", method: "admin" });
    expect(await listed()).toMatchObject({ websiteVerified: true });
    expect((await auditRows(t, "admin.verify-site"))[0]).toMatchObject({ outcome: "success", target: websiteHost });
    const typed = await storeCode(t, employee.id);
    expect((await verify(t, typed, { origin: `https://${websiteHost}` })).json()).toMatchObject({ verified: true });

    expect((await admin.post("/api/admin/organisations/999999/sites", { host: "x.example" })).statusCode).toBe(404);
  });
});

describe("a new employer's sites", () => {
  it("are pending until the verification e-mail proves the e-mail domain; a foreign website stays pending", async () => {
    const n = Math.random().toString(36).slice(2, 8);
    const domain = `new-${n}.example`;
    const email = uniqueEmail(domain, "boss");
    const { browser: admin } = await signInAdmin(t);
    const code = (await admin.post("/api/admin/generate-employer-access-code", { email })).json().code as string;
    const anon = anonymous(t);
    const reg = await anon.post("/api/employer/auth/register-employer", {
      fullName: "Bea Boss",
      companyName: "New Co",
      website: `https://www.bank-${n}.example`,
      email,
      password: GOOD_PASSWORD,
      confirmPassword: GOOD_PASSWORD,
      role: "superuser",
      accessCode: code,
    });
    expect(reg.statusCode, reg.body).toBeLessThan(300);
    const statuses = async () =>
      (await t.database.db.select().from(organisationSites).orderBy(organisationSites.id))
        .filter((s) => s.host.endsWith(`-${n}.example`))
        .map((s) => [s.host, s.status]);
    expect(await statuses()).toEqual([
      [domain, "pending"],
      [`www.bank-${n}.example`, "pending"],
    ]);
    const link = await t.mail.link(email, "/verify-email?");
    expect(
      (await anon.post("/api/auth/verify-email", { email, token: link.searchParams.get("token") })).statusCode,
    ).toBe(200);
    expect(await statuses()).toEqual([
      [domain, "verified"],
      [`www.bank-${n}.example`, "pending"],
    ]);
    const [site] = await t.database.db.select().from(organisationSites).where(eq(organisationSites.host, domain));
    expect(site?.method).toBe("email-domain");
  });
});

describe("the prover", () => {
  const prover = (outbound = "loopback") =>
    siteProver({
      dnsServers: [dns.address],
      outbound: parseOutboundPolicy(outbound),
      httpPort: files.port,
      timeoutMs: 2000,
    });

  it("never fetches the file from a loopback, private or metadata address the outbound policy does not allow", async () => {
    for (const [host, address] of [
      ["loop.example", "127.0.0.1"],
      ["lan.example", "192.168.1.10"],
      ["meta.example", "169.254.169.254"],
    ] as const) {
      dns.setA(host, address);
      files.files.set(host, { status: 200, body: "tok" });
      expect(await prover("external").prove(host, "tok")).toBeNull();
      expect(await prover("*").prove(host, "tok")).toBeNull();
    }
    dns.setA("loop.example", "127.0.0.1");
    expect(await prover("loopback").prove("loop.example", "tok")).toBe("well-known");
    expect(await prover("loop.example").prove("loop.example", "tok")).toBe("well-known");
    expect(await prover("loopback").prove("meta.example", "tok")).toBeNull();
  });

  it("follows no redirect to another host and reads no more than a small file", async () => {
    dns.setA("moved.example", "127.0.0.1");
    dns.setA("elsewhere.example", "127.0.0.1");
    files.files.set("moved.example", { status: 302, body: "", location: `http://elsewhere.example:${files.port}/x` });
    files.files.set("elsewhere.example", { status: 200, body: "tok" });
    expect(await prover().prove("moved.example", "tok")).toBeNull();

    dns.setA("same.example", "127.0.0.1");
    files.files.set("same.example", { status: 301, body: "", location: SITE_PROOF.filePath });
    expect(await prover().prove("same.example", "tok")).toBeNull();

    dns.setA("big.example", "127.0.0.1");
    files.files.set("big.example", { status: 200, body: `tok\n${"x".repeat(100_000)}` });
    expect(await prover().prove("big.example", "tok")).toBeNull();
  });
});
