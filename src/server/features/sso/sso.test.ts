import { createServer as createHttpServer } from "node:http";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { sessions, ssoLinks, ssoStates, users } from "@server/db/schema";
import { OUTBOUND_TEXT, parseOutboundPolicy } from "@server/lib/outbound";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { SSO_REQUIRED_MESSAGE, SSO_TEXT } from "@shared/sso";
import {
  auditRows,
  createEmployee,
  createEmployer,
  freshIp,
  signInAdmin,
  TRUST_PROXY_ENV,
  tableText,
} from "@test/fixtures";
import { Browser, buildTestApp, createUser, GOOD_PASSWORD, signIn, type TestApp, uniqueEmail } from "@test/helpers";
import { signInAtIdp, TestIdp } from "@test/oidc-provider";
import { SoftwarePasskey } from "@test/software-authenticator";
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkIssuer } from "./provider";
import { isEntraIssuer } from "./signin";

const ENV = { ...TRUST_PROXY_ENV, OUTBOUND_ALLOWED_HOSTS: "loopback" };
const MINUTE = 60_000;

let t: TestApp;
let idp: TestIdp;
let redirectUri: string;
let logLines: string[];

beforeEach(async () => {
  logLines = [];
  t = await buildTestApp({ env: ENV, log: (line) => logLines.push(line) });
  redirectUri = `${t.config.publicUrl}/api/auth/sso/callback`;
  idp = await new TestIdp().start(redirectUri);
});
afterEach(async () => {
  await idp?.stop();
  await t?.close();
});

const newBrowser = () => new Browser(t.app, freshIp(), t.config.publicOrigin);

/** An organisation whose superuser connected it to the test provider through the dashboard's API. */
async function organisationWithSso(settings: { enforced?: boolean; jitProvisioning?: boolean } = {}) {
  const employer = await createEmployer(t);
  const boss = await signIn(t, employer.user.email, GOOD_PASSWORD, freshIp());
  const saved = await boss.request("PUT", "/api/employer/sso", {
    issuer: idp.issuer,
    clientId: idp.clientId,
    clientSecret: idp.clientSecret,
    ...settings,
  });
  expect(saved.statusCode, saved.body).toBe(200);
  await t.app.deps.background.idle();
  return { ...employer, boss };
}

/** The start /login makes: a POST with the CSRF token, from CallProof's own origin. */
const postStart = (browser: Browser, email: string) => browser.post("/api/auth/sso/start", { email });

/** Presses "Continue with single sign-on" for `email`: the provider's authorization URL CallProof sends the browser to. */
async function startSso(browser: Browser, email: string) {
  const res = await postStart(browser, email);
  expect(res.statusCode, res.body).toBe(200);
  return String(res.json().url);
}

/** The provider's redirect back to CallProof, delivered by `browser`: where CallProof sends it then. */
async function deliver(browser: Browser, callback: URL) {
  const res = await browser.get(callback.pathname + callback.search);
  expect(res.statusCode, res.body).toBe(302);
  return String(res.headers.location);
}

/** A whole SSO sign-in: start, sign in at the provider as `login`, come back. */
async function ssoSignIn(email: string, login: string, browser = newBrowser()) {
  const authorization = await startSso(browser, email);
  const callback = await signInAtIdp(authorization, login, { redirectUri });
  return { browser, callback, landing: await deliver(browser, callback) };
}

async function whoami(browser: Browser) {
  const res = await browser.get("/api/auth/whoami");
  return res.statusCode === 200 ? (res.json().role as string) : res.statusCode;
}

const userByEmail = async (email: string) =>
  (await t.database.db.select().from(users).where(eq(users.email, email)))[0];

describe("signing in through the organisation's identity provider", () => {
  it("the first sign-in creates an active, verified employee (JIT); the second lands on the same account", async () => {
    const { org, domain } = await organisationWithSso();
    const email = `alice@${domain}`;
    idp.accounts.set("alice-sub", { email, email_verified: true, name: "Alice Example" });

    const first = await ssoSignIn(email, "alice-sub");
    expect(first.landing).toBe("/dashboard");
    expect(await whoami(first.browser)).toBe("client");
    const created = await userByEmail(email);
    expect(created).toMatchObject({
      role: "client",
      status: "active",
      organisationId: org.id,
      fullName: "Alice Example",
    });
    expect(created?.emailVerifiedAt).not.toBeNull();
    expect((await first.browser.get("/api/client-info")).json()).toMatchObject({ fullName: "Alice Example" });

    const second = await ssoSignIn(email, "alice-sub");
    expect(second.landing).toBe("/dashboard");
    expect(await whoami(second.browser)).toBe("client");
    expect(await t.database.db.select().from(users).where(eq(users.email, email))).toHaveLength(1);
    const links = await t.database.db.select().from(ssoLinks).where(eq(ssoLinks.userId, created!.id));
    expect(links).toMatchObject([{ issuer: idp.issuer, subject: "alice-sub" }]);
    // Sessions SSO started are marked so (enforcing SSO keeps them).
    const own = await t.database.db.select().from(sessions).where(eq(sessions.userId, created!.id));
    expect(own.map((s) => s.viaSso)).toEqual([true, true]);
    const audited = await auditRows(t, AUDIT_ACTIONS.ssoSignIn);
    expect(audited.map((r) => [r.outcome, r.detail?.how])).toEqual([
      ["success", "linked"],
      ["success", "created"],
    ]);
  });

  it("links an existing employee by verified e-mail, then finds them by (iss, sub) after the e-mail changes at the provider", async () => {
    const { org, domain } = await organisationWithSso({ jitProvisioning: false });
    const employee = await createEmployee(t, org.id, domain, { fullName: "Bob Existing" });
    idp.accounts.set("bob-sub", { email: employee.email, email_verified: true });

    const first = await ssoSignIn(employee.email, "bob-sub");
    expect(first.landing).toBe("/dashboard");
    expect((await first.browser.get("/api/client-info")).json()).toMatchObject({ fullName: "Bob Existing" });

    // The provider renames the address; the same (iss, sub) still signs in the same account, no new one.
    const renamed = `robert@${domain}`;
    idp.accounts.set("bob-sub", { email: renamed, email_verified: true });
    const again = await ssoSignIn(renamed, "bob-sub");
    expect(again.landing).toBe("/dashboard");
    expect((await again.browser.get("/api/client-info")).json()).toMatchObject({ fullName: "Bob Existing" });
    expect(await userByEmail(renamed)).toBeUndefined();

    // Another identity at the provider carrying Bob's address is never let into Bob's linked account.
    idp.accounts.set("impostor", { email: employee.email, email_verified: true });
    const impostor = await ssoSignIn(employee.email, "impostor");
    expect(impostor.landing).toBe("/login?sso=failed&reason=linked-elsewhere");
    expect(await whoami(impostor.browser)).toBe(401);
  });

  it("a superuser of the organisation signs in through SSO too and lands on the employer dashboard", async () => {
    const { user } = await organisationWithSso();
    idp.accounts.set("boss-sub", { email: user.email, email_verified: true });
    const { browser, landing } = await ssoSignIn(user.email, "boss-sub");
    expect(landing).toBe("/employer-dashboard");
    expect(await whoami(browser)).toBe("superuser");
  });

  it("starts only from CallProof's own page: a cross-site start is refused and the browser's session stays", async () => {
    const { domain } = await organisationWithSso();
    // The attacker's own employee account, whose identity at the provider the attacker holds.
    const attacker = `attacker@${domain}`;
    idp.accounts.set("attacker-sub", { email: attacker, email_verified: true });
    // The victim is signed in to CallProof (another organisation) in the same browser.
    const other = await createEmployer(t);
    const victim = await signIn(t, other.user.email, GOOD_PASSWORD, freshIp());
    expect(await whoami(victim)).toBe("superuser");
    const stateCookie = (res: { cookies: Array<{ name: string }> }) => res.cookies.some((c) => c.name === "cp_sso");

    // A link on another site (the old GET): no flow, just /login with the address filled in.
    const link = await victim.get(`/api/auth/sso/start?email=${encodeURIComponent(attacker)}`);
    expect(link.statusCode).toBe(303);
    expect(link.headers.location).toBe(`/login?email=${encodeURIComponent(attacker)}`);
    expect(stateCookie(link)).toBe(false);

    // A form on another site posting to it, with the victim's cookies (and with or without an Origin).
    for (const origin of ["https://evil.example", undefined]) {
      const form = await t.app.inject({
        method: "POST",
        url: "/api/auth/sso/start",
        remoteAddress: victim.ip,
        headers: {
          cookie: victim.cookieHeader(),
          "content-type": "application/x-www-form-urlencoded",
          "sec-fetch-site": "cross-site",
          ...(origin ? { origin } : {}),
        },
        payload: `email=${encodeURIComponent(attacker)}`,
      });
      expect(form.statusCode, String(origin)).toBe(403);
      expect(form.json().message).toBeTruthy();
      expect(stateCookie(form)).toBe(false);
    }
    // Even with the token, a browser that says the request came from another site is refused.
    const told = await victim.post("/api/auth/sso/start", { email: attacker }, { "sec-fetch-site": "same-site" });
    expect(told.statusCode).toBe(403);
    expect(stateCookie(told)).toBe(false);

    expect(await t.database.db.select().from(ssoStates)).toEqual([]);
    expect(await whoami(victim)).toBe("superuser");

    // From the page itself, the same browser may start (and then signs in as whoever it proves to be).
    const own = await victim.post("/api/auth/sso/start", { email: attacker }, { "sec-fetch-site": "same-origin" });
    expect(own.statusCode).toBe(200);
    expect(new URL(own.json().url).origin).toBe(idp.issuer);
    // The contract's GET, navigated to from the page itself, starts the flow with a 302 to the provider.
    const navigated = await victim.get(`/api/auth/sso/start?email=${encodeURIComponent(attacker)}`, {
      "sec-fetch-site": "same-origin",
    });
    expect(navigated.statusCode).toBe(302);
    expect(new URL(String(navigated.headers.location)).origin).toBe(idp.issuer);
    expect(stateCookie(navigated)).toBe(true);
  });

  describe("refusals, each with its reason and without a session", () => {
    async function refused(claims: Record<string, unknown>, expectReason: string) {
      const { domain } = await organisationWithSso();
      const login = `sub-${Math.random().toString(36).slice(2)}`;
      if (typeof claims.email === "string") claims.email = claims.email.replace("PLACEHOLDER", domain);
      idp.accounts.set(login, claims);
      const email = typeof claims.email === "string" && claims.email.endsWith(domain) ? claims.email : `x@${domain}`;
      const { browser, landing } = await ssoSignIn(email, login);
      expect(landing).toBe(`/login?sso=failed&reason=${expectReason}`);
      expect(await whoami(browser)).toBe(401);
      const [row] = await auditRows(t, AUDIT_ACTIONS.ssoSignIn);
      expect(row).toMatchObject({ outcome: "denied", detail: expect.objectContaining({ reason: expectReason }) });
      return domain;
    }

    it("an e-mail on another domain", async () => {
      await refused({ email: "mallory@elsewhere.test", email_verified: true }, "wrong-domain");
      expect(await userByEmail("mallory@elsewhere.test")).toBeUndefined();
    });

    it("email_verified: false (and no account is created)", async () => {
      const domain = await refused({ email: "unverified@PLACEHOLDER", email_verified: false }, "email-unverified");
      expect(await userByEmail(`unverified@${domain}`)).toBeUndefined();
    });

    it("an address that is not ASCII", async () => {
      const { domain } = await organisationWithSso();
      idp.accounts.set("u", { email: `jos\u00e9@${domain}`, email_verified: true });
      const { landing } = await ssoSignIn(`jose@${domain}`, "u");
      expect(landing).toBe("/login?sso=failed&reason=no-email");
    });

    it("a look-alike address (the Kelvin sign, which lower-cases to k) is refused and never linked", async () => {
      const { org, domain, boss } = await organisationWithSso();
      const kate = await createUser(t, { email: `kate@${domain}`, role: "client", organisationId: org.id });
      const kelvin = `\u212Aate@${domain}`;
      expect(kelvin.toLowerCase()).toBe(kate.email);
      idp.accounts.set("kelvin-sub", { email: kelvin, email_verified: true });
      const { browser, landing } = await ssoSignIn(kate.email, "kelvin-sub");
      expect(landing).toBe("/login?sso=failed&reason=no-email");
      expect(await whoami(browser)).toBe(401);
      // Nor as a JIT account's name (preferred_username, upn) or from the UserInfo answer's spelling.
      idp.accounts.set("kelvin-upn", { upn: kelvin, preferred_username: kelvin });
      expect((await ssoSignIn(kate.email, "kelvin-upn")).landing).toBe("/login?sso=failed&reason=no-email");
      expect(await t.database.db.select().from(ssoLinks)).toEqual([]);
      expect(await t.database.db.select().from(users).where(eq(users.organisationId, org.id))).toHaveLength(2);

      // SCIM: the same rule for userName and emails (400), and a filter with it finds nobody.
      const token = (await boss.post("/api/employer/scim-token")).json().token as string;
      const scim = (method: "GET" | "POST", url: string, body?: unknown) =>
        t.app.inject({
          method,
          url: `/api/scim/v2${url}`,
          headers: { authorization: `Bearer ${token}`, "content-type": "application/scim+json" },
          ...(body ? { payload: JSON.stringify(body) } : {}),
        });
      const schemas = ["urn:ietf:params:scim:schemas:core:2.0:User"];
      for (const body of [
        { schemas, userName: kelvin },
        { schemas, emails: [{ value: kelvin, primary: true }] },
        { schemas, userName: `kate2@${domain}\u00a0` },
      ]) {
        const created = await scim("POST", "/Users", body);
        expect(created.statusCode, JSON.stringify(body)).toBe(400);
        expect(created.json()).toMatchObject({ scimType: "invalidValue" });
      }
      const found = await scim("GET", `/Users?filter=${encodeURIComponent(`userName eq "${kelvin}"`)}`);
      expect(found.statusCode).toBe(200);
      expect(found.json().totalResults).toBe(0);
      // Signing in with a password under the look-alike is refused as a malformed address.
      const login = await newBrowser().post("/api/auth/login", { email: kelvin, password: GOOD_PASSWORD });
      expect(login.statusCode).toBe(400);
    });

    it("an existing account is never linked through preferred_username or an unverified e-mail", async () => {
      const { org, domain } = await organisationWithSso();
      const employee = await createEmployee(t, org.id, domain);
      idp.accounts.set("pu", { preferred_username: employee.email });
      const { landing } = await ssoSignIn(employee.email, "pu");
      expect(landing).toBe("/login?sso=failed&reason=email-unverified");
      expect(await t.database.db.select().from(ssoLinks)).toEqual([]);
    });

    it("a tampered ID token (claims changed, signature kept)", async () => {
      const { domain } = await organisationWithSso();
      idp.accounts.set("eve", { email: `eve@${domain}`, email_verified: true });
      idp.tamperNextIdToken((c) => ({ ...c, sub: "someone-else" }), { resign: false });
      const { browser, landing } = await ssoSignIn(`eve@${domain}`, "eve");
      expect(landing).toBe("/login?sso=failed&reason=bad-signature");
      expect(await whoami(browser)).toBe(401);
    });

    it("an expired ID token signed by the provider's own key", async () => {
      const { domain } = await organisationWithSso();
      idp.accounts.set("old", { email: `old@${domain}`, email_verified: true });
      const past = Math.floor(Date.now() / 1000) - 3600;
      idp.tamperNextIdToken((c) => ({ ...c, iat: past - 600, exp: past }));
      const { landing } = await ssoSignIn(`old@${domain}`, "old");
      expect(landing).toBe("/login?sso=failed&reason=token-expired");
    });

    it("an ID token for another audience", async () => {
      const { domain } = await organisationWithSso();
      idp.accounts.set("aud", { email: `aud@${domain}`, email_verified: true });
      idp.tamperNextIdToken((c) => ({ ...c, aud: "another-application", azp: "another-application" }));
      const { landing } = await ssoSignIn(`aud@${domain}`, "aud");
      expect(landing).toBe("/login?sso=failed&reason=wrong-audience");
    });

    it("a wrong nonce", async () => {
      const { domain } = await organisationWithSso();
      idp.accounts.set("n", { email: `n@${domain}`, email_verified: true });
      const browser = newBrowser();
      const authorization = new URL(await startSso(browser, `n@${domain}`));
      authorization.searchParams.set("nonce", "a-nonce-of-another-attempt");
      const callback = await signInAtIdp(authorization.href, "n", { redirectUri });
      expect(await deliver(browser, callback)).toBe("/login?sso=failed&reason=wrong-nonce");
      expect(await whoami(browser)).toBe(401);
    });

    it("a replayed state, a state another browser started, and a state older than 10 minutes", async () => {
      const { domain } = await organisationWithSso();
      idp.accounts.set("r", { email: `r@${domain}`, email_verified: true });

      const { browser, callback, landing } = await ssoSignIn(`r@${domain}`, "r");
      expect(landing).toBe("/dashboard");
      expect(await deliver(browser, callback)).toBe("/login?sso=failed&reason=invalid-state");

      // Started by the victim's browser, delivered by the attacker's: refused, the state not used up.
      const victim = newBrowser();
      const foreign = await signInAtIdp(await startSso(victim, `r@${domain}`), "r", { redirectUri });
      const attacker = newBrowser();
      expect(await deliver(attacker, foreign)).toBe("/login?sso=failed&reason=invalid-state");
      expect(await whoami(attacker)).toBe(401);
      expect(await deliver(victim, foreign)).toBe("/dashboard");

      // A made-up state, and none.
      const forged = new URL(foreign);
      forged.searchParams.set("state", "made-up");
      expect(await deliver(newBrowser(), forged)).toBe("/login?sso=failed&reason=invalid-state");

      const slow = newBrowser();
      const late = await signInAtIdp(await startSso(slow, `r@${domain}`), "r", { redirectUri });
      t.clock.advance(10 * MINUTE + 1000);
      expect(await deliver(slow, late)).toBe("/login?sso=failed&reason=expired-state");
      const reasons = (await auditRows(t, AUDIT_ACTIONS.ssoSignIn)).map((r) => r.detail?.reason);
      expect(reasons.filter((r) => r === "invalid-state")).toHaveLength(3);
    });

    it("a deactivated account (its SSO link is deleted) and a deactivated organisation", async () => {
      const { org, domain, boss, user } = await organisationWithSso();
      const employee = await createEmployee(t, org.id, domain);
      idp.accounts.set("emp", { email: employee.email, email_verified: true });
      expect((await ssoSignIn(employee.email, "emp")).landing).toBe("/dashboard");
      expect(await t.database.db.select().from(ssoLinks).where(eq(ssoLinks.userId, employee.id))).toHaveLength(1);

      expect((await boss.post(`/api/employer/deactivate-employee/${employee.id}`)).statusCode).toBe(200);
      expect(await t.database.db.select().from(ssoLinks).where(eq(ssoLinks.userId, employee.id))).toEqual([]);
      expect((await ssoSignIn(employee.email, "emp")).landing).toBe("/login?sso=failed&reason=account-deactivated");

      // An attempt in flight when an admin deactivates the organisation is refused; new ones find no SSO.
      const colleague = await createEmployee(t, org.id, domain);
      idp.accounts.set("col", { email: colleague.email, email_verified: true });
      const browser = newBrowser();
      const callback = await signInAtIdp(await startSso(browser, colleague.email), "col", { redirectUri });
      const admin = await signInAdmin(t);
      expect((await admin.browser.post(`/api/admin/deactivate-employer/${user.id}`)).statusCode).toBe(200);
      expect(await deliver(browser, callback)).toBe("/login?sso=failed&reason=organisation-deactivated");
      expect((await postStart(newBrowser(), colleague.email)).statusCode).toBe(404);
      expect((await newBrowser().get(`/api/auth/sso/discover?email=${colleague.email}`)).json()).toEqual({
        sso: false,
      });
    });

    it("an unknown e-mail without JIT", async () => {
      const { domain } = await organisationWithSso({ jitProvisioning: false });
      idp.accounts.set("new", { email: `new@${domain}`, email_verified: true });
      const { browser, landing } = await ssoSignIn(`new@${domain}`, "new");
      expect(landing).toBe("/login?sso=failed&reason=no-account");
      expect(await whoami(browser)).toBe(401);
      expect(await userByEmail(`new@${domain}`)).toBeUndefined();
    });

    it("with a SCIM token: no JIT; a provisioned employee signs in through SSO until SCIM deactivates them", async () => {
      const { domain, boss } = await organisationWithSso();
      const token = (await boss.post("/api/employer/scim-token")).json().token as string;
      const scim = (method: "POST" | "PATCH", url: string, body: unknown) =>
        t.app.inject({
          method,
          url: `/api/scim/v2${url}`,
          headers: { authorization: `Bearer ${token}`, "content-type": "application/scim+json" },
          payload: JSON.stringify(body),
        });
      const email = `provisioned@${domain}`;
      const created = await scim("POST", "/Users", {
        schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
        userName: email,
        displayName: "Pro Visioned",
      });
      expect(created.statusCode).toBe(201);
      idp.accounts.set("provisioned-sub", { email, email_verified: true, name: "Pro Visioned" });
      const first = await ssoSignIn(email, "provisioned-sub");
      expect(first.landing).toBe("/dashboard");
      expect(await whoami(first.browser)).toBe("client");

      idp.accounts.set("stranger-sub", { email: `stranger@${domain}`, email_verified: true });
      const stranger = await ssoSignIn(`stranger@${domain}`, "stranger-sub");
      expect(stranger.landing).toBe("/login?sso=failed&reason=no-account");
      expect(await userByEmail(`stranger@${domain}`)).toBeUndefined();

      const off = await scim("PATCH", `/Users/${created.json().id}`, {
        schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
        Operations: [{ op: "replace", value: { active: false } }],
      });
      expect(off.statusCode).toBe(200);
      expect(await whoami(first.browser)).toBe(401);
      const again = await ssoSignIn(email, "provisioned-sub");
      expect(again.landing).toMatch(/^\/login\?sso=failed&reason=account-/);
      expect(await whoami(again.browser)).toBe(401);
    });

    it("the provider's own refusal (the user cancels at the provider)", async () => {
      const { domain } = await organisationWithSso();
      const browser = newBrowser();
      const authorization = new URL(await startSso(browser, `c@${domain}`));
      const state = authorization.searchParams.get("state") ?? "";
      const callback = new URL(
        `${redirectUri}?error=access_denied&state=${state}&iss=${encodeURIComponent(idp.issuer)}`,
      );
      expect(await deliver(browser, callback)).toBe("/login?sso=failed&reason=provider-refused");
    });
  });

  it("e-mails belong to the organisation with the longest matching domain (discover and start)", async () => {
    const { domain } = await organisationWithSso();
    await createEmployer(t, { domain: `branch.${domain}` });
    const discover = async (email: string) =>
      (await newBrowser().get(`/api/auth/sso/discover?email=${encodeURIComponent(email)}`)).json();
    expect(await discover(`a@${domain}`)).toMatchObject({ sso: true, enforced: false });
    expect(await discover(`a@team.${domain}`)).toMatchObject({ sso: true });
    expect(await discover(`a@branch.${domain}`)).toEqual({ sso: false });
    expect(await discover("a@elsewhere.test")).toEqual({ sso: false });
    expect(await discover("not an e-mail")).toEqual({ sso: false });
    const start = await postStart(newBrowser(), `a@branch.${domain}`);
    expect(start.statusCode).toBe(404);
    expect(start.json().message).toBe(SSO_TEXT.noSsoForDomain);

    // The start asks for exactly what the contract fixes: code flow, PKCE S256, state, nonce, the scopes, login_hint.
    const authorization = new URL(await startSso(newBrowser(), `Someone@${domain}`));
    expect(authorization.origin).toBe(idp.issuer);
    const q = Object.fromEntries(authorization.searchParams);
    expect(q).toMatchObject({
      response_type: "code",
      client_id: idp.clientId,
      redirect_uri: redirectUri,
      scope: "openid email profile",
      code_challenge_method: "S256",
      login_hint: `someone@${domain}`,
    });
    expect(q.state?.length).toBeGreaterThanOrEqual(43);
    expect(q.nonce?.length).toBeGreaterThanOrEqual(43);
    expect(q.code_challenge?.length).toBe(43);
  });

  it("never writes the query's code, state or e-mail to the log", async () => {
    const { domain } = await organisationWithSso();
    const email = `logged@${domain}`;
    idp.accounts.set("logged", { email, email_verified: true });
    const { callback, landing } = await ssoSignIn(email, "logged");
    expect(landing).toBe("/dashboard");
    const text = logLines.join("\n");
    expect(text).toContain("/api/auth/sso/callback");
    for (const secret of [callback.searchParams.get("code"), callback.searchParams.get("state"), email]) {
      expect(secret).toBeTruthy();
      expect(text).not.toContain(secret);
      expect(text).not.toContain(encodeURIComponent(secret ?? ""));
    }
  });

  it("limits sso/start and sso/callback per client address before any write, auditing refusals sparsely", async () => {
    const { domain } = await organisationWithSso();
    const browser = newBrowser();
    const codes: number[] = [];
    for (let i = 0; i < 45; i++) codes.push((await postStart(browser, `a${i}@${domain}`)).statusCode);
    expect(codes.slice(0, 30).every((c) => c === 200)).toBe(true);
    expect(codes.slice(30).every((c) => c === 429)).toBe(true);
    const denied = (await auditRows(t, AUDIT_ACTIONS.ssoStart)).filter((r) => r.outcome === "denied");
    expect(denied).toHaveLength(2); // the 1st and the 10th refusal

    // 35 made-up callbacks: 30 refused under the limit, 5 beyond it; at most 3 audit rows in all.
    const flood = newBrowser();
    const landings: string[] = [];
    for (let i = 0; i < 35; i++)
      landings.push(String((await flood.get(`/api/auth/sso/callback?code=x&state=made-up-${i}`)).headers.location));
    expect(landings.slice(0, 30).every((l) => l === "/login?sso=failed&reason=invalid-state")).toBe(true);
    expect(landings.slice(30).every((l) => l === "/login?sso=failed&reason=too-many-attempts")).toBe(true);
    const rows = await auditRows(t, AUDIT_ACTIONS.ssoSignIn);
    expect(rows.length).toBeLessThanOrEqual(3);
    // Each says how many refusals it stands for.
    expect(rows.map((r) => [r.detail?.reason, r.detail?.refused]).reverse()).toEqual([
      ["invalid-state", 1],
      ["invalid-state", 10],
      ["throttled", 1],
    ]);
  });

  // 300 requests: the address arithmetic is the same on every engine, and the rate-limit statement it relies on
  // is proven on PostgreSQL by the other limit tests; run once.
  it.skipIf(process.env.TEST_DB === "postgres")(
    "counts IPv6 clients by /64 and by /48: many /64s of one network are limited too",
    async () => {
      await organisationWithSso();
      // 2001:db8:7:<n>::1 — a new /64 for each request, all inside 2001:db8:7::/48.
      const fromSubnet = (n: number) => new Browser(t.app, `2001:db8:7:${n.toString(16)}::1`, t.config.publicOrigin);
      const landings: string[] = [];
      for (let n = 0; n < 305; n++)
        landings.push(
          String((await fromSubnet(n).get(`/api/auth/sso/callback?code=x&state=made-up-${n}`)).headers.location),
        );
      expect(landings.slice(0, 300).every((l) => l === "/login?sso=failed&reason=invalid-state")).toBe(true);
      expect(landings.slice(300).every((l) => l === "/login?sso=failed&reason=too-many-attempts")).toBe(true);
      // Another /48 is not touched; the refusals of the whole /48 were audited sparsely (1st, 10th, 100th…).
      const other = new Browser(t.app, "2001:db8:8::1", t.config.publicOrigin);
      expect(String((await other.get("/api/auth/sso/callback?code=x&state=made-up")).headers.location)).toBe(
        "/login?sso=failed&reason=invalid-state",
      );
      expect((await auditRows(t, AUDIT_ACTIONS.ssoSignIn)).length).toBeLessThanOrEqual(5);
    },
  );
});

describe("enforced single sign-on", () => {
  it("refuses the password path for an employee (only after a right password) and keeps it for the superuser", async () => {
    const { org, domain, user: boss } = await organisationWithSso();
    const employee = await createEmployee(t, org.id, domain);
    const passwordSession = await signIn(t, employee.email, GOOD_PASSWORD, freshIp());
    // A colleague signed in through SSO before the switch keeps that session.
    const colleague = await createEmployee(t, org.id, domain);
    idp.accounts.set("col", { email: colleague.email, email_verified: true });
    const { browser: ssoSession } = await ssoSignIn(colleague.email, "col");

    const superuser = await signIn(t, boss.email, GOOD_PASSWORD, freshIp());
    const saved = await superuser.request("PUT", "/api/employer/sso", {
      issuer: idp.issuer,
      clientId: idp.clientId,
      enforced: true,
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json()).toMatchObject({ enforced: true, jitProvisioning: true });

    // Switching it on ended the employee's password session, not the SSO one.
    expect(await whoami(passwordSession)).toBe(401);
    expect(await whoami(ssoSession)).toBe("client");

    const login = (email: string, password: string) => newBrowser().post("/api/auth/login", { email, password });
    const wrong = await login(employee.email, "Wrong-Password-1!");
    expect(wrong.statusCode).toBe(401);
    const right = await login(employee.email, GOOD_PASSWORD);
    expect(right.statusCode).toBe(403);
    expect(right.json()).toMatchObject({ message: SSO_REQUIRED_MESSAGE, code: "sso.required" });
    expect(t.mail.to(employee.email)).toHaveLength(1); // only the first sign-in's code, before enforcement

    // Password reset: the same answer as for an unknown address, and no mail.
    const before = t.mail.to(employee.email).length;
    const forgot = await newBrowser().post("/api/auth/forgot-password", { email: employee.email });
    const unknown = await newBrowser().post("/api/auth/forgot-password", { email: uniqueEmail(domain) });
    expect(forgot.statusCode).toBe(200);
    expect(forgot.json()).toEqual(unknown.json());
    await t.app.deps.background.idle();
    expect(t.mail.to(employee.email)).toHaveLength(before);

    // The superuser keeps the password as a way back in.
    const back = await signIn(t, boss.email, GOOD_PASSWORD, freshIp());
    expect(await whoami(back)).toBe("superuser");

    // The employee still signs in through SSO.
    idp.accounts.set("emp", { email: employee.email, email_verified: true });
    expect((await ssoSignIn(employee.email, "emp")).landing).toBe("/dashboard");

    // Registering with an access code is refused for the organisation's domain.
    const code = (await back.post("/api/employer/generate-access-code", { maxUsers: 5 })).json().code as string;
    const registered = await newBrowser().post("/api/auth/register-employee", {
      email: uniqueEmail(domain),
      password: GOOD_PASSWORD,
      fullName: "New Person",
      accessCode: code,
    });
    expect(registered.statusCode).toBe(403);
    expect(registered.json().message).toBe(SSO_REQUIRED_MESSAGE);

    expect((await newBrowser().get(`/api/auth/sso/discover?email=${employee.email}`)).json()).toMatchObject({
      sso: true,
      enforced: true,
    });
  });
});

describe("the Single sign-on settings (GET/PUT/DELETE /api/employer/sso)", () => {
  it("keeps the client secret sealed and never answers it; changing issuer or client needs it again and drops the links", async () => {
    const employer = await createEmployer(t);
    const boss = await signIn(t, employer.user.email, GOOD_PASSWORD, freshIp());
    expect((await boss.get("/api/employer/sso")).json()).toBeNull();

    const noSecret = await boss.request("PUT", "/api/employer/sso", { issuer: idp.issuer, clientId: idp.clientId });
    expect(noSecret.statusCode).toBe(400);
    expect(noSecret.json().message).toBe(SSO_TEXT.clientSecretRequired);

    const saved = await boss.request("PUT", "/api/employer/sso", {
      issuer: idp.issuer,
      clientId: idp.clientId,
      clientSecret: idp.clientSecret,
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const expected = {
      issuer: idp.issuer,
      clientId: idp.clientId,
      enforced: false,
      jitProvisioning: true,
      redirectUri,
      secretHint: idp.clientSecret.slice(-4),
    };
    expect(saved.json()).toEqual(expected);
    expect((await boss.get("/api/employer/sso")).json()).toEqual(expected);
    expect(await tableText(t, "sso_connections")).not.toContain(idp.clientSecret.slice(0, 20));
    expect(JSON.stringify(await auditRows(t, AUDIT_ACTIONS.saveSso))).not.toContain(idp.clientSecret.slice(0, 20));
    // Every superuser of the organisation is told.
    await t.app.deps.background.idle();
    expect(t.mail.to(employer.user.email).some((m) => /single sign-on was changed/i.test(m.subject))).toBe(true);

    // Saved again without the secret: kept.
    expect(
      (await boss.request("PUT", "/api/employer/sso", { issuer: idp.issuer, clientId: idp.clientId, enforced: false }))
        .statusCode,
    ).toBe(200);

    // A linked employee, then the client id changes: the secret is needed again, and the links go.
    idp.accounts.set("l", { email: `l@${employer.domain}`, email_verified: true });
    expect((await ssoSignIn(`l@${employer.domain}`, "l")).landing).toBe("/dashboard");
    expect(await t.database.db.select().from(ssoLinks)).toHaveLength(1);
    const changed = await boss.request("PUT", "/api/employer/sso", { issuer: idp.issuer, clientId: "other-client" });
    expect(changed.statusCode).toBe(400);
    expect(changed.json().message).toBe(SSO_TEXT.clientSecretRequiredAgain);
    const withSecret = await boss.request("PUT", "/api/employer/sso", {
      issuer: idp.issuer,
      clientId: "other-client",
      clientSecret: "another-secret-0123456789",
    });
    expect(withSecret.statusCode, withSecret.body).toBe(200);
    expect(await t.database.db.select().from(ssoLinks)).toEqual([]);

    // An admin reads it for the organisation; only the superuser changes it.
    const admin = await signInAdmin(t);
    expect((await admin.browser.get(`/api/employer/sso?organisationId=${employer.org.id}`)).json()).toMatchObject({
      clientId: "other-client",
    });
    expect(
      (await admin.browser.request("PUT", "/api/employer/sso", { issuer: idp.issuer, clientId: "x" })).statusCode,
    ).toBe(403);

    expect((await boss.request("DELETE", "/api/employer/sso")).statusCode).toBe(200);
    expect((await boss.get("/api/employer/sso")).json()).toBeNull();
    expect((await boss.request("DELETE", "/api/employer/sso")).statusCode).toBe(404);
  });

  it("needs a sign-in within the last 15 minutes", async () => {
    const employer = await createEmployer(t);
    const boss = await signIn(t, employer.user.email, GOOD_PASSWORD, freshIp());
    t.clock.advance(16 * MINUTE);
    await boss.get("/api/auth/whoami"); // still signed in (active)
    const res = await boss.request("PUT", "/api/employer/sso", {
      issuer: idp.issuer,
      clientId: idp.clientId,
      clientSecret: idp.clientSecret,
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toBe(SSO_TEXT.recentSignInNeeded);
    expect((await boss.get("/api/employer/sso")).json()).toBeNull();
  });

  it("checks the issuer's discovery document and says what failed", async () => {
    const employer = await createEmployer(t);
    const boss = await signIn(t, employer.user.email, GOOD_PASSWORD, freshIp());
    const save = async (issuer: string) =>
      boss.request("PUT", "/api/employer/sso", { issuer, clientId: "c", clientSecret: "s-0123456789abcdef" });
    const cases: Array<[string, string | RegExp]> = [
      ["not a url", SSO_TEXT.issuerInvalid],
      ["ftp://idp.example/", SSO_TEXT.issuerNotHttps],
      ["https://login.microsoftonline.com/{tenantid}/v2.0", SSO_TEXT.issuerMultiTenant],
      ["https://user:pw@idp.example/", SSO_TEXT.issuerCredentials],
      // Nothing listens on port 1 of loopback.
      ["http://127.0.0.1:1", /^The issuer could not be reached: /],
      // The provider itself, named with a different spelling than its document's issuer.
      [`${idp.issuer}/`, SSO_TEXT.issuerMismatch],
      // A loopback server that is not an OpenID provider (the IdP's own key set is JSON, not a discovery document).
      [`${idp.issuer}/jwks`, SSO_TEXT.issuerNotAnIssuer],
      // Outside OUTBOUND_ALLOWED_HOSTS (loopback only here).
      ["https://192.0.2.1", /^The issuer could not be reached: /],
    ];
    for (const [issuer, message] of cases) {
      const res = await save(issuer);
      expect(res.statusCode, issuer).toBe(400);
      if (typeof message === "string") expect(res.json().message, issuer).toBe(message);
      else expect(res.json().message, issuer).toMatch(message);
      expect(res.json().message, issuer).not.toMatch(/\b\d{3}\b.*status|:1\b/);
    }
    expect((await boss.get("/api/employer/sso")).json()).toBeNull();

    // With the default policy (public addresses only) an http issuer is refused before any request.
    const external = { ...t.app.deps, config: { ...t.app.deps.config, outbound: parseOutboundPolicy("external") } };
    const connection = { clientId: "c", clientSecret: "s-0123456789abcdef" };
    expect(await checkIssuer(external, { issuer: "http://idp.example", ...connection })).toBe(SSO_TEXT.issuerNotHttps);
    expect(await checkIssuer(external, { issuer: idp.issuer, ...connection })).toBe(SSO_TEXT.issuerNotHttps);
  });

  // No database in it (and it waits out the provider's 10 s time-out once): run once.
  it.skipIf(process.env.TEST_DB === "postgres")(
    "takes the webhooks' port rule, and names only the step that failed, never what the document said",
    async () => {
      const connection = { clientId: "c", clientSecret: "s-0123456789abcdef" };
      // Public hosts: 443 or 80 only (the operator may allow others by name, range, loopback or private).
      const external = { ...t.app.deps, config: { ...t.app.deps.config, outbound: parseOutboundPolicy("external") } };
      for (const issuer of ["https://203.0.113.7:8443", "https://idp.example:22/realms/a"])
        expect(await checkIssuer(external, { issuer, ...connection }), issuer).toBe(
          SSO_TEXT.issuerUnreachable(OUTBOUND_TEXT.port),
        );

      // A port where nothing listens and a server that never answers: the same words (a closed port and a
      // filtered one look alike).
      const silent = createNetServer(() => {});
      await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
      const closed = createNetServer();
      await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
      const closedPort = (closed.address() as AddressInfo).port;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      // A discovery document naming an issuer of its own choosing: not repeated to the organisation.
      const liar = createHttpServer((_req, res) => {
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ issuer: "https://said-by-the-document.example/secret-words" }));
      });
      await new Promise<void>((resolve) => liar.listen(0, "127.0.0.1", resolve));
      try {
        const at = (server: { address(): unknown }) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        const refused = await checkIssuer(t.app.deps, { issuer: `http://127.0.0.1:${closedPort}`, ...connection });
        const hung = await checkIssuer(t.app.deps, { issuer: at(silent), ...connection });
        expect(refused).toBe(SSO_TEXT.issuerUnreachable(SSO_TEXT.fetchStep));
        expect(hung).toBe(refused);
        const lied = await checkIssuer(t.app.deps, { issuer: at(liar), ...connection });
        expect(lied).toBe(SSO_TEXT.issuerMismatch);
        expect(lied).not.toContain("said-by-the-document");
      } finally {
        silent.close();
        liar.closeAllConnections();
        await new Promise<void>((resolve) => liar.close(() => resolve()));
      }
    },
    30_000,
  );
});

describe("more of the identity rules", () => {
  it("xms_edov counts only from Microsoft Entra issuers; preferred_username or upn only name a new JIT account", async () => {
    const { org, domain } = await organisationWithSso();
    const employee = await createEmployee(t, org.id, domain, { fullName: "Erin Entra" });
    // Entra ID sends no email_verified; its xms_edov says the e-mail's domain is verified. This provider is
    // not Entra ID: its xms_edov links nothing.
    idp.accounts.set("entra-oid-1", { email: employee.email, xms_edov: true });
    const refused = await ssoSignIn(employee.email, "entra-oid-1");
    expect(refused.landing).toBe("/login?sso=failed&reason=email-unverified");
    expect(await whoami(refused.browser)).toBe(401);
    expect(await t.database.db.select().from(ssoLinks)).toEqual([]);
    // The issuers it counts from: Entra ID's v2.0 and v1 forms for one tenant.
    const tenant = "9188040d-6c67-4c5b-b112-36a304b66dad";
    expect(isEntraIssuer(`https://login.microsoftonline.com/${tenant}/v2.0`)).toBe(true);
    expect(isEntraIssuer(`https://sts.windows.net/${tenant}/`)).toBe(true);
    for (const other of [
      idp.issuer,
      "https://login.microsoftonline.com/{tenantid}/v2.0",
      `https://login.microsoftonline.com.evil.test/${tenant}/v2.0`,
      `https://login.microsoftonline.com/${tenant}/v2.0/evil`,
      `http://login.microsoftonline.com/${tenant}/v2.0`,
      "https://accounts.google.com",
    ])
      expect(isEntraIssuer(other), other).toBe(false);

    // No email claim at all: the UPN makes a new account (JIT), lower-cased.
    idp.accounts.set("entra-oid-2", { upn: `New.Person@${domain.toUpperCase()}`, name: "New Person" });
    const created = await ssoSignIn(`new.person@${domain}`, "entra-oid-2");
    expect(created.landing).toBe("/dashboard");
    expect(await userByEmail(`new.person@${domain}`)).toMatchObject({ role: "client", fullName: "New Person" });
  });

  it("reads the e-mail from the UserInfo answer when the ID token carries none", async () => {
    const strict = await new TestIdp().start(redirectUri, { claimsOnlyInUserInfo: true });
    try {
      const employer = await createEmployer(t);
      const boss = await signIn(t, employer.user.email, GOOD_PASSWORD, freshIp());
      const saved = await boss.request("PUT", "/api/employer/sso", {
        issuer: strict.issuer,
        clientId: strict.clientId,
        clientSecret: strict.clientSecret,
      });
      expect(saved.statusCode, saved.body).toBe(200);
      const employee = await createEmployee(t, employer.org.id, employer.domain);
      strict.accounts.set("ui", { email: employee.email, email_verified: true });
      const browser = newBrowser();
      const callback = await signInAtIdp(await startSso(browser, employee.email), "ui", { redirectUri });
      expect(await deliver(browser, callback)).toBe("/dashboard");
      expect((await browser.get("/api/client-info")).json()).toMatchObject({ fullName: employee.fullName });
    } finally {
      await strict.stop();
    }
  });

  it("an erased account's identity is never linked to it again", async () => {
    const { org, domain } = await organisationWithSso();
    const employee = await createEmployee(t, org.id, domain);
    idp.accounts.set("gone", { email: employee.email, email_verified: true });
    expect((await ssoSignIn(employee.email, "gone")).landing).toBe("/dashboard");
    const admin = await signInAdmin(t);
    expect((await admin.browser.post(`/api/admin/accounts/${employee.id}/erase`)).statusCode).toBe(200);
    expect(await t.database.db.select().from(ssoLinks).where(eq(ssoLinks.userId, employee.id))).toEqual([]);
    // The same identity signs in again: a new account (JIT), never the erased one.
    expect((await ssoSignIn(employee.email, "gone")).landing).toBe("/dashboard");
    const again = await userByEmail(employee.email);
    expect(again?.id).not.toBe(employee.id);
  });

  it("enforced SSO refuses an employee's passkey and keeps the superuser's", async () => {
    const { org, domain, user: boss } = await organisationWithSso();
    const employee = await createEmployee(t, org.id, domain);
    const addPasskey = async (email: string) => {
      const browser = await signIn(t, email, GOOD_PASSWORD, freshIp());
      const key = new SoftwarePasskey(t.config.publicOrigin);
      const options = (await browser.post("/api/account/passkeys/options")).json();
      expect((await browser.post("/api/account/passkeys", { response: key.register(options) })).statusCode).toBe(201);
      return key;
    };
    const employeeKey = await addPasskey(employee.email);
    const bossKey = await addPasskey(boss.email);
    const superuser = await signIn(t, boss.email, GOOD_PASSWORD, freshIp());
    const saved = await superuser.request("PUT", "/api/employer/sso", {
      issuer: idp.issuer,
      clientId: idp.clientId,
      enforced: true,
    });
    expect(saved.statusCode).toBe(200);

    const passkeySignIn = async (key: SoftwarePasskey) => {
      const browser = newBrowser();
      const options = (await browser.post("/api/auth/passkey/options")).json();
      const res = await browser.post("/api/auth/passkey/verify", { response: key.assert(options) });
      return { res, browser };
    };
    const refused = await passkeySignIn(employeeKey);
    expect(refused.res.statusCode).toBe(403);
    expect(refused.res.json().message).toBe(SSO_REQUIRED_MESSAGE);
    expect(await whoami(refused.browser)).toBe(401);
    const kept = await passkeySignIn(bossKey);
    expect(kept.res.statusCode).toBe(200);
    expect(await whoami(kept.browser)).toBe("superuser");
  });
});
