import { organisations, users, webhookDeliveries, webhookEndpoints } from "@server/db/schema";
import { claimDeliveries } from "@server/features/webhooks/service";
import { ADMIN_MESSAGES } from "@shared/admin";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { MESSAGES } from "@shared/messages";
import {
  auditRows,
  createEmployee,
  createEmployer,
  freshIp,
  generate,
  signInAdmin,
  TRUST_PROXY_ENV,
  verify,
} from "@test/fixtures";
import { Browser, buildTestApp, signIn, type TestApp } from "@test/helpers";
import { Receiver } from "@test/webhook-receiver";
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, expect, it } from "vitest";

/**
 * Issue 32 H2: an organisation is `active` or `deactivated`, an admin's deactivation (of the employer or
 * by domain) deactivates it with every account of it, and every way in asks the one rule.
 */

let t: TestApp;
let receiver: Receiver;
beforeEach(async () => {
  t = await buildTestApp({ env: { ...TRUST_PROXY_ENV, OUTBOUND_ALLOWED_HOSTS: "loopback" } });
  receiver = await new Receiver().start();
});
afterEach(async () => {
  await receiver.stop();
  await t?.close();
});

const SCIM_USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const PASSWORD = "Fresh-Start-91";

/** A SCIM client (an identity provider: bearer token, no cookies). */
function scim(token: string) {
  const ip = freshIp();
  return (method: "GET" | "POST", path: string, body?: unknown) =>
    t.app.inject({
      method,
      url: `/api/scim/v2${path}`,
      headers: {
        "x-forwarded-for": ip,
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/scim+json" }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
}

/** An integration's call with an API key. */
function v1(key: string, method: "GET" | "POST", url: string, body?: object) {
  return t.app.inject({
    method,
    url,
    headers: { "x-forwarded-for": freshIp(), authorization: `Bearer ${key}` },
    ...(body ? { payload: body } : {}),
  });
}

/** An organisation with a signed-in employer, its SCIM token, an API key and a webhook endpoint. */
async function equippedOrganisation() {
  const employer = await createEmployer(t);
  const boss = await signIn(t, employer.user.email);
  const token = (await boss.post("/api/employer/scim-token")).json().token as string;
  const keyRes = await boss.post("/api/employer/api-keys", { name: "desk", scopes: ["codes:write", "codes:read"] });
  expect(keyRes.statusCode, keyRes.body).toBe(201);
  const hook = await boss.request("PUT", "/api/employer/webhook", { url: receiver.url });
  expect(hook.statusCode, hook.body).toBe(200);
  return { ...employer, boss, token, key: keyRes.json().key as string };
}

/** The employee sets a password through "Forgot your password?" and signs in. */
async function firstSignIn(email: string) {
  const browser = new Browser(t.app, freshIp(), t.config.publicOrigin);
  const before = t.mail.to(email).length;
  expect((await browser.post("/api/auth/forgot-password", { email })).statusCode).toBe(200);
  await t.app.deps.background.idle();
  const link = await t.mail.link(email, "/reset-password?token=", before);
  const reset = await browser.post("/api/auth/reset-password", {
    token: link.searchParams.get("token"),
    newPassword: PASSWORD,
  });
  expect(reset.statusCode).toBe(200);
  return signIn(t, email, PASSWORD, freshIp());
}

const organisationStatus = async (id: number) =>
  (await t.database.db.select().from(organisations).where(eq(organisations.id, id)))[0]?.status;
const userStatus = async (id: number) => (await t.database.db.select().from(users).where(eq(users.id, id)))[0]?.status;

it("deactivate-by-domain deactivates the organisation and its SCIM employee under the domain: sign-in, generation, look-up, SCIM, API key and webhooks all refuse; deactivate-employer still answers; reactivation restores the organisation", async () => {
  const org = await equippedOrganisation();
  const site = `https://www.${org.domain}`;
  const annEmail = `ann@eu.${org.domain}`;
  const created = await scim(org.token)("POST", "/Users", {
    schemas: [SCIM_USER],
    userName: annEmail,
    name: { givenName: "Ann", familyName: "Eu" },
    active: true,
  });
  expect(created.statusCode, created.body).toBe(201);
  const annId = Number(created.json().id);
  const ann = await firstSignIn(annEmail);
  const before = await generate(ann);
  // a code verified before: its code.verified delivery waits while the endpoint is paused
  await t.database.db
    .update(webhookEndpoints)
    .set({ pausedUntil: new Date(Date.now() + 3_600_000) })
    .where(eq(webhookEndpoints.organisationId, org.org.id));
  const heard = await generate(ann);
  expect((await verify(t, heard.words.join(" "), { origin: site })).json().verified).toBe(true);
  const queued = await t.database.db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.organisationId, org.org.id));
  expect(queued.map((d) => d.status)).toEqual(["pending"]);

  const { browser: admin } = await signInAdmin(t);
  const res = await admin.post("/api/admin/deactivate-by-domain", { domain: org.domain });
  expect(res.statusCode).toBe(200);
  // the employer and Ann, who is under the domain (created by SCIM)
  expect(res.json()).toEqual({ count: 2, message: ADMIN_MESSAGES.domainDeactivated(2, org.domain) });
  expect(await organisationStatus(org.org.id)).toBe("deactivated");
  expect(await userStatus(annId)).toBe("deactivated");

  // sign-in: the session in use ended, generation refused, a new sign-in refused
  expect((await ann.get("/api/auth/whoami")).statusCode).toBe(401);
  expect((await ann.post("/api/generate-words")).statusCode).toBe(401);
  const again = await new Browser(t.app, freshIp(), t.config.publicOrigin).post("/api/auth/login", {
    email: annEmail,
    password: PASSWORD,
  });
  expect(again.statusCode).toBe(403);
  expect(again.json().message).toBe(MESSAGES.accountDeactivated);
  // the look-up of a code generated before, on the organisation's own site
  expect((await verify(t, before.words.join(" "), { origin: site })).json()).toEqual({
    verified: false,
    message: MESSAGES.codeNotVerified,
  });
  // SCIM and the API key
  expect((await scim(org.token)("GET", "/Users")).statusCode).toBe(401);
  expect((await v1(org.key, "POST", "/api/v1/codes", { employeeEmail: annEmail })).statusCode).toBe(401);
  // webhooks: with the endpoint working again, the waiting delivery is not claimed, nor sent
  await t.database.db
    .update(webhookEndpoints)
    .set({ pausedUntil: null })
    .where(eq(webhookEndpoints.organisationId, org.org.id));
  const claimed = await claimDeliveries(t.app.deps, 10);
  await t.app.deps.background.idle();
  expect(claimed.filter((d) => d.organisation_id === org.org.id)).toEqual([]);
  expect(receiver.received).toEqual([]);
  // and a report on its site afterwards queues nothing for it
  const report = await t.app.inject({
    method: "POST",
    url: "/api/reports",
    headers: { "content-type": "application/json", origin: site, "x-forwarded-for": freshIp() },
    payload: JSON.stringify({ callerNumber: "+1 555 0100" }),
  });
  expect(report.statusCode).toBe(201);
  const after = await t.database.db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.organisationId, org.org.id));
  expect(after.map((d) => [d.id, d.status])).toEqual([[queued[0]?.id, "pending"]]);

  // no superuser is left active: deactivating the employer still answers (nothing left to deactivate)
  const employer = await admin.post(`/api/admin/deactivate-employer/${org.user.id}`);
  expect(employer.statusCode).toBe(200);
  expect(employer.json()).toEqual({ message: ADMIN_MESSAGES.employerDeactivated, count: 0 });

  // the dashboard lists it; reactivation restores the organisation, not its accounts
  const listed = (await admin.get("/api/admin/deactivated-organisations")).json();
  expect(listed).toEqual([
    { id: org.org.id, companyName: org.org.companyName, domain: org.domain, deactivatedAt: expect.any(String) },
  ]);
  const reactivated = await admin.post(`/api/admin/organisations/${org.org.id}/reactivate`);
  expect(reactivated.statusCode).toBe(200);
  expect(reactivated.json()).toEqual({ message: ADMIN_MESSAGES.organisationReactivated(org.org.companyName, 1) });
  expect(await organisationStatus(org.org.id)).toBe("active");
  expect((await admin.get("/api/admin/deactivated-organisations")).json()).toEqual([]);
  expect(await userStatus(annId)).toBe("deactivated");
  // its employer waits in the pending list; the admin activates it with the existing action
  const pending = (await admin.get("/api/admin/pending-accounts")).json() as Array<{ id: number }>;
  expect(pending.map((p) => p.id)).toContain(org.user.id);
  expect((await admin.post(`/api/admin/activate-account/${org.user.id}`)).statusCode).toBe(200);
  expect((await signIn(t, org.user.email).then((b) => b.get("/api/auth/whoami"))).statusCode).toBe(200);
  // the organisation's SCIM token speaks for it again
  expect((await scim(org.token)("GET", "/Users")).statusCode).toBe(200);
  expect((await auditRows(t, AUDIT_ACTIONS.reactivateOrganisation))[0]).toMatchObject({
    outcome: "success",
    organisationId: org.org.id,
    target: String(org.org.id),
  });
  // only a deactivated organisation can be reactivated
  const twice = await admin.post(`/api/admin/organisations/${org.org.id}/reactivate`);
  expect(twice.statusCode).toBe(404);
  expect(twice.json().message).toBe(ADMIN_MESSAGES.deactivatedOrganisationNotFound);
});

it("a deactivated organisation vouches for nobody even while an account of it is still active (the one rule)", async () => {
  // The state a deactivation leaves between marking the organisation and its accounts (see the admin
  // service): every way in must refuse on the organisation alone.
  const org = await equippedOrganisation();
  const staff = await createEmployee(t, org.org.id, org.domain);
  const browser = await signIn(t, staff.email);
  const code = await generate(browser);
  await t.database.db.update(organisations).set({ status: "deactivated" }).where(eq(organisations.id, org.org.id));

  expect(await userStatus(staff.id)).toBe("active");
  expect((await browser.get("/api/auth/whoami")).statusCode).toBe(401);
  expect((await org.boss.get("/api/auth/whoami")).statusCode).toBe(401);
  const login = await new Browser(t.app, freshIp(), t.config.publicOrigin).post("/api/auth/login", {
    email: staff.email,
    password: staff.password,
  });
  expect(login.statusCode).toBe(403);
  expect((await verify(t, code.words.join(" "), { origin: `https://www.${org.domain}` })).json().verified).toBe(false);
  expect((await scim(org.token)("GET", "/Users")).statusCode).toBe(401);
  expect((await v1(org.key, "POST", "/api/v1/codes", { employeeEmail: staff.email })).statusCode).toBe(401);

  // the admin's reactivation is what makes it active again
  const { browser: admin } = await signInAdmin(t);
  expect((await admin.post(`/api/admin/organisations/${org.org.id}/reactivate`)).statusCode).toBe(200);
  expect((await v1(org.key, "POST", "/api/v1/codes", { employeeEmail: staff.email })).statusCode).toBe(201);
});
