import { auditLog, employeeAccessCodes, employerInvitations, organisations, users } from "@server/db/schema";
import { ADMIN_MESSAGES } from "@shared/admin";
import { TOKEN_LIFETIME } from "@shared/constants";
import { MESSAGES } from "@shared/messages";
import { ONBOARDING_MESSAGES } from "@shared/onboarding";
import {
  anonymous,
  auditRows,
  createEmployer,
  freshIpHeaders,
  GOOD_PASSWORD,
  signInAdmin,
  TRUST_PROXY_ENV,
} from "@test/fixtures";
import { buildTestApp, createUser, signIn, type TestApp, uniqueEmail } from "@test/helpers";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const DAY = 86_400_000;

describe("employer invitations and employer sign-up", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: TRUST_PROXY_ENV });
  });
  afterAll(() => t.close());

  /** Admin invites `email`; returns the code. */
  async function invite(email: string) {
    const { browser } = await signInAdmin(t);
    const res = await browser.post("/api/admin/generate-employer-access-code", { email });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().code as string;
  }

  const employerBody = (email: string, accessCode: string, extra: Record<string, unknown> = {}) => ({
    fullName: "Bea Boss",
    companyName: "Acme Ltd",
    website: "acme.example",
    email,
    password: GOOD_PASSWORD,
    confirmPassword: GOOD_PASSWORD,
    role: "superuser",
    accessCode,
    ...extra,
  });

  it("e-mails the admin's invitation as a link with the code; the address is trimmed and lower-cased", async () => {
    const { browser } = await signInAdmin(t);
    const domain = `acme-${Date.now()}.example`;
    const res = await browser.post("/api/admin/generate-employer-access-code", {
      email: `  Boss@${domain.toUpperCase()}  `,
    });
    expect(res.statusCode, res.body).toBe(200);
    const { code } = res.json();
    expect(code).toMatch(/^[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}$/);
    const link = await t.mail.link(`boss@${domain}`, "/employer-access-code?code=");
    expect(link.origin).toBe("http://localhost:3000");
    expect(link.searchParams.get("code")).toBe(code);
    // stored hashed only
    const rows = await t.database.db
      .select()
      .from(employerInvitations)
      .where(eq(employerInvitations.email, `boss@${domain}`));
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(code);
    expect(rows[0]?.expiresAt.getTime()).toBe(t.clock.now().getTime() + TOKEN_LIFETIME.employerInvitationMs);
    // audited without the code
    const [audit] = await auditRows(t, "admin.invite-employer");
    expect(audit).toMatchObject({ outcome: "success", target: `boss@${domain}` });
    expect(JSON.stringify(audit)).not.toContain(code);
  });

  it("refuses public webmail and invalid addresses with a clear 400", async () => {
    const { browser } = await signInAdmin(t);
    for (const email of [
      "someone@gmail.com",
      "x@GoogleMail.com",
      "a@yahoo.co.uk",
      "b@outlook.com",
      "c@proton.me",
      "d@gmx.de",
    ]) {
      const res = await browser.post("/api/admin/generate-employer-access-code", { email });
      expect(res.statusCode, email).toBe(400);
      expect(res.json().message).toBe(ADMIN_MESSAGES.webmailRefused);
    }
    for (const body of [{ email: "not-an-email" }, { email: "" }, {}, { email: 42 }, "nope", [], "{bad json"]) {
      const raw = typeof body === "string" ? body : JSON.stringify(body);
      const res = await browser.post("/api/admin/generate-employer-access-code", raw, {
        "content-type": "application/json",
      });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().message).toBeTruthy();
    }
  });

  it("validates a code in any case and with any separators, and refuses unknown ones", async () => {
    const email = uniqueEmail(`v${Date.now()}.example`, "boss");
    const code = await invite(email);
    const anon = anonymous(t);
    for (const typed of [code, code.toLowerCase(), code.replace(/-/g, " "), code.replace(/-/g, "")]) {
      const res = await anon.post("/api/employer/auth/validate-employer-access-code", { code: typed });
      expect(res.statusCode, typed).toBe(200);
      expect(res.json()).toEqual({ email });
    }
    const bad = await anon.post("/api/employer/auth/validate-employer-access-code", { code: "AAAA-BBBB-CCCC" });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toBe(ONBOARDING_MESSAGES.invalidAccessCode);
    for (const body of [{}, { code: "" }, { code: 123 }, { code: "x".repeat(100) }]) {
      expect((await anon.post("/api/employer/auth/validate-employer-access-code", body)).statusCode).toBe(400);
    }
  });

  it("limits wrong code guesses per IP (429 with Retry-After), without affecting other IPs", async () => {
    const anon = anonymous(t);
    for (let i = 0; i < 10; i++) {
      const res = await anon.post("/api/employer/auth/validate-employer-access-code", { code: `WRONG-${i}` });
      expect(res.statusCode).toBe(400);
    }
    const blocked = await anon.post("/api/auth/validate-access-code", { code: "WRONG-X" });
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers["retry-after"])).toBeGreaterThan(0);
    const other = anonymous(t);
    expect((await other.post("/api/employer/auth/validate-employer-access-code", { code: "WRONG" })).statusCode).toBe(
      400,
    );
    expect((await auditRows(t, "onboarding.validate-access-code"))[0]).toMatchObject({ outcome: "denied" });
  });

  it("genuine codes do not count towards the guess limit", async () => {
    const email = uniqueEmail(`g${Date.now()}.example`, "boss");
    const code = await invite(email);
    const anon = anonymous(t);
    for (let i = 0; i < 12; i++) {
      expect((await anon.post("/api/employer/auth/validate-employer-access-code", { code })).statusCode).toBe(200);
    }
  });

  it("an invitation expires after 7 days", async () => {
    const email = uniqueEmail(`exp${Date.now()}.example`, "boss");
    const code = await invite(email);
    const anon = anonymous(t);
    t.clock.advance(TOKEN_LIFETIME.employerInvitationMs - 1000);
    expect((await anon.post("/api/employer/auth/validate-employer-access-code", { code })).statusCode).toBe(200);
    t.clock.advance(2000);
    const res = await anon.post("/api/employer/auth/validate-employer-access-code", { code });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(ONBOARDING_MESSAGES.invalidAccessCode);
    const reg = await anon.post("/api/employer/auth/register-employer", employerBody(email, code));
    expect(reg.statusCode).toBe(400);
  });

  it("a new invitation for the same address replaces the earlier one", async () => {
    const email = uniqueEmail(`re${Date.now()}.example`, "boss");
    const first = await invite(email);
    const second = await invite(email);
    const anon = anonymous(t);
    expect((await anon.post("/api/employer/auth/validate-employer-access-code", { code: first })).statusCode).toBe(400);
    expect((await anon.post("/api/employer/auth/validate-employer-access-code", { code: second })).statusCode).toBe(
      200,
    );
  });

  it("checks the employer form in the specification's order, then the common-password rule", async () => {
    const email = uniqueEmail(`order${Date.now()}.example`, "boss");
    const code = await invite(email);
    const anon = anonymous(t);
    const post = (extra: Record<string, unknown>) =>
      anon.post("/api/employer/auth/register-employer", employerBody(email, code, extra));

    let res = await post({ password: "weak", confirmPassword: "weaker" });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(MESSAGES.passwordsDoNotMatch);

    res = await post({ password: "weakpass", confirmPassword: "weakpass" });
    expect(res.json().message).toBe(MESSAGES.employerPasswordRules);

    const long = `Aa!${"x".repeat(126)}`;
    res = await post({ password: long, confirmPassword: long });
    expect(res.json().message).toBe(MESSAGES.passwordTooLong);

    res = await post({ password: "P@ssw0rd", confirmPassword: "P@ssw0rd" });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(MESSAGES.passwordTooCommon);

    // every field is required
    for (const field of [
      "fullName",
      "companyName",
      "website",
      "email",
      "password",
      "confirmPassword",
      "role",
      "accessCode",
    ]) {
      const body: Record<string, unknown> = employerBody(email, code);
      delete body[field];
      const r = await anon.post("/api/employer/auth/register-employer", body);
      expect(r.statusCode, field).toBe(400);
      expect(r.json().message, field).toBeTruthy();
    }
    for (const extra of [
      { fullName: "   " },
      { role: "admin" },
      { email: 5 },
      { website: "javascript:alert(1)" },
      { website: "not a site" },
      { website: "ftp://acme.example" },
    ]) {
      const r = await post(extra);
      expect(r.statusCode, JSON.stringify(extra)).toBe(400);
    }
    // nothing was created along the way
    expect(await t.database.db.select().from(users).where(eq(users.email, email))).toHaveLength(0);
  });

  it("the e-mail must be the invitation's", async () => {
    const domain = `wrong${Date.now()}.example`;
    const email = `boss@${domain}`;
    const code = await invite(email);
    const res = await anonymous(t).post("/api/employer/auth/register-employer", employerBody(`other@${domain}`, code));
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(ONBOARDING_MESSAGES.wrongInvitationEmail);
  });

  it("registers a pending employer: organisation from the e-mail domain, normalised website, verification link; then activation", async () => {
    const domain = `full${Date.now()}.example`;
    const email = `founder@${domain}`;
    const code = await invite(email);
    const anon = anonymous(t);
    expect((await anon.post("/api/employer/auth/validate-employer-access-code", { code })).json()).toEqual({ email });
    const res = await anon.post(
      "/api/employer/auth/register-employer",
      employerBody(email.toUpperCase(), code.toLowerCase(), {
        website: "https://WWW.Acme-Widgets.example/",
        companyName: "  Acme Widgets  ",
      }),
    );
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().message).toBeTruthy();

    const [org] = await t.database.db.select().from(organisations).where(eq(organisations.domain, domain));
    expect(org).toMatchObject({
      companyName: "Acme Widgets",
      website: "https://www.acme-widgets.example",
      websiteHost: "www.acme-widgets.example",
    });
    const [user] = await t.database.db.select().from(users).where(eq(users.email, email));
    expect(user).toMatchObject({
      role: "superuser",
      status: "pending",
      organisationId: org?.id,
      emailVerifiedAt: null,
    });

    // single use
    const again = await anonymous(t).post("/api/employer/auth/register-employer", employerBody(email, code));
    expect(again.statusCode).toBe(400);
    expect((await anon.post("/api/employer/auth/validate-employer-access-code", { code })).statusCode).toBe(400);

    // cannot sign in before verifying, nor before activation
    const login = await anonymous(t).post("/api/auth/login", { email, password: GOOD_PASSWORD });
    expect(login.statusCode).toBe(403);
    expect(login.json().message).toBe(MESSAGES.emailNotVerified);

    // that sign-in attempt mailed a new link, which replaces the first
    const link = await t.mail.link(email, "/verify-email?", t.mail.to(email).length - 1);
    expect(link.searchParams.get("email")).toBe(email);
    const verified = await anon.post("/api/auth/verify-email", { email, token: link.searchParams.get("token") });
    expect(verified.statusCode).toBe(200);
    expect(verified.json()).toEqual({ role: "superuser", pending: true });

    const pendingLogin = await anonymous(t).post("/api/auth/login", { email, password: GOOD_PASSWORD });
    expect(pendingLogin.statusCode).toBe(403);
    expect(pendingLogin.json().message).toBe(MESSAGES.accountPending);

    const { browser: admin } = await signInAdmin(t);
    const pending = await admin.get("/api/admin/pending-accounts");
    expect(pending.statusCode).toBe(200);
    expect(pending.json()).toContainEqual({
      id: user?.id,
      fullName: "Bea Boss",
      email,
      companyName: "Acme Widgets",
      website: "https://www.acme-widgets.example",
      organisationId: user?.organisationId,
      // a website outside the e-mail domain is not proved by the e-mail
      websiteVerified: false,
      emailVerified: true,
    });

    const activated = await admin.post(`/api/admin/activate-account/${user?.id}`);
    expect(activated.statusCode).toBe(200);
    expect(activated.json().message).toBeTruthy();
    await t.mail.waitFor(email, (m) => /activated/i.test(m.text));
    expect((await admin.get("/api/admin/pending-accounts")).json()).not.toContainEqual(
      expect.objectContaining({ id: user?.id }),
    );
    expect((await admin.get("/api/admin/active-employers")).json()).toContainEqual(
      expect.objectContaining({ id: user?.id, email }),
    );
    expect((await admin.post(`/api/admin/activate-account/${user?.id}`)).statusCode).toBe(404);

    const employer = await signIn(t, email);
    expect((await employer.get("/api/auth/whoami")).json()).toEqual({ role: "superuser" });

    const events = await t.database.db.select().from(auditLog).where(eq(auditLog.target, email));
    expect(events.map((e) => `${e.action}:${e.outcome}`)).toEqual(
      expect.arrayContaining([
        "admin.invite-employer:success",
        "onboarding.register-employer:success",
        "onboarding.validate-employer-code:success",
      ]),
    );
    const everything = JSON.stringify(await t.database.db.select().from(auditLog));
    expect(everything).not.toContain(code);
    expect(everything).not.toContain(GOOD_PASSWORD);
  });

  it("lists pending employers marked by whether their e-mail is verified; activating an unverified one is a 409", async () => {
    const { user } = await createEmployer(t, { status: "pending", verified: false });
    const { user: ready } = await createEmployer(t, { status: "pending" });
    const { browser: admin } = await signInAdmin(t);
    const pending = (await admin.get("/api/admin/pending-accounts")).json();
    expect(pending).toContainEqual(expect.objectContaining({ id: user.id, emailVerified: false }));
    expect(pending).toContainEqual(expect.objectContaining({ id: ready.id, emailVerified: true }));
    const res = await admin.post(`/api/admin/activate-account/${user.id}`);
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toBe(ADMIN_MESSAGES.emailNotVerifiedYet);
  });

  it("activation: bad ids are 400, unknown or non-pending accounts 404", async () => {
    const { browser: admin, admin: me } = await signInAdmin(t);
    const { user: active } = await createEmployer(t);
    for (const id of ["abc", "0", "-1", "1.5", "99999999999", "1e3"]) {
      const res = await admin.post(`/api/admin/activate-account/${id}`);
      expect(res.statusCode, id).toBe(400);
    }
    for (const id of [2_000_000_000, active.id, me.id]) {
      expect((await admin.post(`/api/admin/activate-account/${id}`)).statusCode, String(id)).toBe(404);
    }
    expect((await auditRows(t, "admin.activate-account"))[0]).toMatchObject({ outcome: "failure" });
  });

  it("an organisation domain can be registered once (409), and the admin is told when inviting", async () => {
    const domain = `dup${Date.now()}.example`;
    const codeA = await invite(`a@${domain}`);
    const codeB = await invite(`b@${domain}`);
    expect(
      (await anonymous(t).post("/api/employer/auth/register-employer", employerBody(`a@${domain}`, codeA))).statusCode,
    ).toBe(201);
    const second = await anonymous(t).post("/api/employer/auth/register-employer", employerBody(`b@${domain}`, codeB));
    expect(second.statusCode).toBe(409);
    expect(second.json().message).toBe(ONBOARDING_MESSAGES.organisationExists);
    const { browser: admin } = await signInAdmin(t);
    const third = await admin.post("/api/admin/generate-employer-access-code", { email: `c@${domain}` });
    expect(third.statusCode).toBe(409);
    expect(third.json().message).toBe(ONBOARDING_MESSAGES.organisationExists);
  });

  it("an invitation is used up once even under concurrent registrations", async () => {
    const domain = `race${Date.now()}.example`;
    const email = `boss@${domain}`;
    const code = await invite(email);
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        anonymous(t).post("/api/employer/auth/register-employer", employerBody(email, code)),
      ),
    );
    expect(results.filter((r) => r.statusCode === 201)).toHaveLength(1);
    expect(results.every((r) => r.statusCode < 500)).toBe(true);
    expect(await t.database.db.select().from(organisations).where(eq(organisations.domain, domain))).toHaveLength(1);
  });

  it("admin only: signed out 401, other roles 403", async () => {
    const anon = anonymous(t);
    expect((await anon.post("/api/admin/generate-employer-access-code", { email: "x@corp.example" })).statusCode).toBe(
      401,
    );
    const client = await createUser(t, { role: "client" });
    const b = await signIn(t, client.email);
    expect((await b.post("/api/admin/generate-employer-access-code", { email: "x@corp.example" })).statusCode).toBe(
      403,
    );
    expect((await b.post("/api/admin/generate-employer-access-code", ["garbage"])).statusCode).toBe(403);
    const { user: boss } = await createEmployer(t);
    const e = await signIn(t, boss.email);
    expect((await e.post("/api/admin/generate-employer-access-code", { email: "x@corp.example" })).statusCode).toBe(
      403,
    );
    expect((await auditRows(t, "admin.invite-employer"))[0]).toMatchObject({
      outcome: "denied",
      actorEmail: boss.email,
    });
  });
});

describe("employee access codes and employee sign-up", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: TRUST_PROXY_ENV });
  });
  afterAll(() => t.close());

  /** An active employer, signed in, with a fresh access code for `maxUsers`. */
  async function employerWithCode(maxUsers = 5, opts: { domain?: string } = {}) {
    const employer = await createEmployer(t, { domain: opts.domain, website: "https://www.org-site.example" });
    const browser = await signIn(t, employer.user.email);
    const res = await browser.post("/api/employer/generate-access-code", { maxUsers });
    expect(res.statusCode, res.body).toBe(200);
    return { ...employer, browser, code: res.json().code as string };
  }

  const employeeBody = (email: string, accessCode: string, extra: Record<string, unknown> = {}) => ({
    email,
    password: GOOD_PASSWORD,
    fullName: "Eve Employee",
    accessCode,
    website: "https://www.org-site.example",
    ...extra,
  });

  it("validates a code (any case, any separators) to the organisation's domain and website", async () => {
    const { code, domain } = await employerWithCode();
    const anon = anonymous(t);
    for (const typed of [code, code.toLowerCase().replace(/-/g, " ")]) {
      const res = await anon.post("/api/auth/validate-access-code", { code: typed });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        companyDomain: domain,
        website: "https://www.org-site.example",
        message: ONBOARDING_MESSAGES.validAccessCode,
      });
    }
    const bad = await anon.post("/api/auth/validate-access-code", { code: "ZZZZ-ZZZZ-ZZZZ" });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toBe(ONBOARDING_MESSAGES.invalidAccessCode);
    for (const body of [{}, { code: null }, { code: ["a"] }, "x", "[]", "null", "{"]) {
      const raw = typeof body === "string" ? body : JSON.stringify(body);
      const res = await anon.browser.post("/api/auth/validate-access-code", raw, {
        ...anon.headers,
        "content-type": "application/json",
      });
      expect(res.statusCode, raw).toBe(400);
    }
  });

  it("registers an employee at exactly the organisation's domain, who verifies and signs in", async () => {
    const { code, domain, org } = await employerWithCode();
    const email = `Eve.Smith@${domain.toUpperCase()}`;
    const anon = anonymous(t);
    const res = await anon.post("/api/auth/register-employee", employeeBody(email, code));
    expect(res.statusCode, res.body).toBe(201);
    const lower = email.toLowerCase();
    const [user] = await t.database.db.select().from(users).where(eq(users.email, lower));
    expect(user).toMatchObject({
      role: "client",
      status: "active",
      organisationId: org.id,
      emailVerifiedAt: null,
      fullName: "Eve Employee",
    });
    const [row] = await t.database.db
      .select()
      .from(employeeAccessCodes)
      .where(eq(employeeAccessCodes.organisationId, org.id));
    expect(row?.usedCount).toBe(1);

    expect((await anonymous(t).post("/api/auth/login", { email: lower, password: GOOD_PASSWORD })).statusCode).toBe(
      403,
    );
    // the sign-in attempt mailed a new link, which replaces the first
    const link = await t.mail.link(lower, "/verify-email?", t.mail.to(lower).length - 1);
    const verified = await anon.post("/api/auth/verify-email", { email: lower, token: link.searchParams.get("token") });
    expect(verified.json()).toEqual({ role: "client", pending: false });
    const b = await signIn(t, lower);
    expect((await b.get("/api/auth/whoami")).json()).toEqual({ role: "client" });
    expect((await auditRows(t, "onboarding.register-employee"))[0]).toMatchObject({
      outcome: "success",
      organisationId: org.id,
      target: lower,
    });
  });

  it("refuses e-mails not exactly at the organisation's domain", async () => {
    const { code, domain } = await employerWithCode();
    const [name, tld] = [domain.split(".")[0], domain.split(".").slice(1).join(".")];
    for (const email of [
      `a@sub.${domain}`,
      `a@${domain}.evil.com`,
      `a@evil${domain}`,
      `a@${name}x.${tld}`,
      "a@gmail.com",
    ]) {
      const res = await anonymous(t).post("/api/auth/register-employee", employeeBody(email, code));
      expect(res.statusCode, email).toBe(400);
      expect(res.json().message).toBe(ONBOARDING_MESSAGES.employeeWrongDomain);
    }
  });

  it("applies the employee password rules with the specification's message, and refuses common passwords", async () => {
    const { code, domain } = await employerWithCode();
    let res = await anonymous(t).post(
      "/api/auth/register-employee",
      employeeBody(`p@${domain}`, code, { password: "short" }),
    );
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(MESSAGES.employeePasswordRules);
    res = await anonymous(t).post(
      "/api/auth/register-employee",
      employeeBody(`p@${domain}`, code, { password: "P@ssw0rd" }),
    );
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(MESSAGES.passwordTooCommon);
    for (const field of ["email", "password", "fullName", "accessCode"]) {
      const body: Record<string, unknown> = employeeBody(`p@${domain}`, code);
      delete body[field];
      expect((await anonymous(t).post("/api/auth/register-employee", body)).statusCode, field).toBe(400);
    }
  });

  it("a registered e-mail is a 409 and does not use a seat", async () => {
    const { code, domain, org } = await employerWithCode(5);
    const email = `dup@${domain}`;
    expect((await anonymous(t).post("/api/auth/register-employee", employeeBody(email, code))).statusCode).toBe(201);
    const again = await anonymous(t).post("/api/auth/register-employee", employeeBody(email, code));
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toBe(ONBOARDING_MESSAGES.emailTaken);
    const [row] = await t.database.db
      .select()
      .from(employeeAccessCodes)
      .where(eq(employeeAccessCodes.organisationId, org.id));
    expect(row?.usedCount).toBe(1);
  });

  it("one active code per employer (409 with the specification's message) until it is full or expires", async () => {
    const { browser, code, domain } = await employerWithCode(1);
    const second = await browser.post("/api/employer/generate-access-code", { maxUsers: 3 });
    expect(second.statusCode).toBe(409);
    expect(second.json().message).toBe(MESSAGES.activeCodeExists);
    expect((await auditRows(t, "employer.generate-access-code"))[0]).toMatchObject({ outcome: "denied" });

    // full: the code admits nobody else, and a new one may be generated
    expect(
      (await anonymous(t).post("/api/auth/register-employee", employeeBody(`one@${domain}`, code))).statusCode,
    ).toBe(201);
    const full = await anonymous(t).post("/api/auth/register-employee", employeeBody(`two@${domain}`, code));
    expect(full.statusCode).toBe(400);
    expect(full.json().message).toBe(ONBOARDING_MESSAGES.accessCodeFull);
    expect((await anonymous(t).post("/api/auth/validate-access-code", { code })).json().message).toBe(
      ONBOARDING_MESSAGES.accessCodeFull,
    );
    const current = await browser.get("/api/employer/access-codes");
    expect(current.json()).toMatchObject({ code, maxUsers: 1, usedCount: 1 });
    const next = await browser.post("/api/employer/generate-access-code", { maxUsers: 2 });
    expect(next.statusCode).toBe(200);
    expect(next.json()).toMatchObject({ maxUsers: 2, usedCount: 0 });
    expect(next.json().code).not.toBe(code);
    expect((await browser.get("/api/employer/access-codes")).json()).toEqual(next.json());
  });

  it("a code expires after 7 days; then a new one may be generated", async () => {
    const { code, domain, user } = await employerWithCode(10);
    t.clock.advance(TOKEN_LIFETIME.employeeAccessCodeMs + 1000);
    const res = await anonymous(t).post("/api/auth/register-employee", employeeBody(`late@${domain}`, code));
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(ONBOARDING_MESSAGES.invalidAccessCode);
    const browser = await signIn(t, user.email); // the earlier session has lapsed
    const next = await browser.post("/api/employer/generate-access-code", { maxUsers: 4 });
    expect(next.statusCode).toBe(200);
    expect(new Date(next.json().expiresAt).getTime()).toBe(t.clock.now().getTime() + 7 * DAY);
  });

  it("concurrent sign-ups never exceed maxUsers", async () => {
    const { code, domain, org } = await employerWithCode(3);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        anonymous(t).post("/api/auth/register-employee", employeeBody(`c${i}@${domain}`, code)),
      ),
    );
    expect(results.filter((r) => r.statusCode === 201)).toHaveLength(3);
    expect(results.filter((r) => r.statusCode === 400)).toHaveLength(7);
    const [row] = await t.database.db
      .select()
      .from(employeeAccessCodes)
      .where(eq(employeeAccessCodes.organisationId, org.id));
    expect(row?.usedCount).toBe(3);
    const [{ n } = { n: 0 }] = await t.database.db
      .select({ n: sql<number>`count(*)::int` })
      .from(users)
      .where(eq(users.organisationId, org.id));
    expect(Number(n)).toBe(4); // the employer and three employees
  });

  it("concurrent code generation yields one active code", async () => {
    const employer = await createEmployer(t);
    const browser = await signIn(t, employer.user.email);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => browser.post("/api/employer/generate-access-code", { maxUsers: 2 })),
    );
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(1);
    expect(results.filter((r) => r.statusCode === 409)).toHaveLength(4);
  });

  it("refuses invalid user limits with the specification's message", async () => {
    const employer = await createEmployer(t);
    const browser = await signIn(t, employer.user.email);
    for (const body of [
      { maxUsers: 0 },
      { maxUsers: -1 },
      { maxUsers: 1.5 },
      { maxUsers: "3" },
      { maxUsers: 10_001 },
      { maxUsers: null },
      {},
    ]) {
      const res = await browser.post("/api/employer/generate-access-code", body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().message).toBe(MESSAGES.invalidUserLimit);
    }
    const raw = await browser.post("/api/employer/generate-access-code", "{not json", {
      "content-type": "application/json",
    });
    expect(raw.statusCode).toBe(400);
  });

  it("a deactivated employer's code admits nobody", async () => {
    const { code, domain, user } = await employerWithCode(5);
    await t.database.db.update(users).set({ status: "deactivated" }).where(eq(users.id, user.id));
    expect((await anonymous(t).post("/api/auth/validate-access-code", { code })).statusCode).toBe(400);
    expect((await anonymous(t).post("/api/auth/register-employee", employeeBody(`x@${domain}`, code))).statusCode).toBe(
      400,
    );
  });

  it("wrong employee codes count towards the per-IP guess limit", async () => {
    const headers = freshIpHeaders();
    const anon = anonymous(t);
    for (let i = 0; i < 10; i++) {
      const res = await anon.browser.post(
        "/api/auth/register-employee",
        employeeBody(`g${i}@x.example`, `BAD-${i}`),
        headers,
      );
      expect(res.statusCode).toBe(400);
    }
    const res = await anon.browser.post("/api/auth/validate-access-code", { code: "BAD" }, headers);
    expect(res.statusCode).toBe(429);
    expect(res.headers["retry-after"]).toBeDefined();
  });
});
