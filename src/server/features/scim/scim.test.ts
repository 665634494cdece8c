import { createHash } from "node:crypto";
import { performance } from "node:perf_hooks";
import { scimTokens, scimUsers, users } from "@server/db/schema";
import { checkpointAudit, verifyAudit } from "@server/features/audit";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { SCIM_TEXT } from "@shared/scim";
import {
  auditRows,
  createEmployee,
  createEmployer,
  freshIp,
  generate,
  signInAdmin,
  TRUST_PROXY_ENV,
  tableText,
  verify,
} from "@test/fixtures";
import { Browser, buildTestApp, createUser, signedIn, signIn, type TestApp, uniqueEmail } from "@test/helpers";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: TRUST_PROXY_ENV });
});
afterAll(async () => {
  await t?.close();
});

const SCIM_USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const NEW_PASSWORD = "Fresh-Start-91";

/** An organisation with a signed-in superuser and a SCIM token made on the dashboard. */
async function provisionedOrganisation() {
  const employer = await createEmployer(t);
  const boss = await signedIn(t, employer.user);
  const res = await boss.post("/api/employer/scim-token");
  expect(res.statusCode).toBe(201);
  const { token } = res.json() as { token: string };
  return { ...employer, boss, token, scim: scimClient(token) };
}

/** An identity provider calling /api/scim/v2 with a bearer token, as Okta and Entra ID do (no cookies). */
function scimClient(token: string | null, ip = freshIp()) {
  const call = (method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE", path: string, body?: unknown) =>
    t.app.inject({
      method,
      url: `/api/scim/v2${path}`,
      headers: {
        "x-forwarded-for": ip,
        accept: "application/scim+json",
        ...(token === null ? {} : { authorization: `Bearer ${token}` }),
        ...(body === undefined ? {} : { "content-type": "application/scim+json; charset=utf-8" }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  return {
    get: (path: string) => call("GET", path),
    post: (path: string, body: unknown) => call("POST", path, body),
    put: (path: string, body: unknown) => call("PUT", path, body),
    patch: (path: string, body: unknown) => call("PATCH", path, body),
    delete: (path: string) => call("DELETE", path),
  };
}

const q = (filter: string) => `/Users?filter=${encodeURIComponent(filter)}`;

/** The employee sets a password with "Forgot your password?", signs in and generates a live code. */
async function employeeSignsInWithACode(email: string) {
  const anonymous = new Browser(t.app, freshIp(), t.config.publicOrigin);
  const before = t.mail.to(email).length;
  expect((await anonymous.post("/api/auth/forgot-password", { email })).statusCode).toBe(200);
  await t.app.deps.background.idle();
  const link = await t.mail.link(email, "/reset-password?token=", before);
  const reset = await anonymous.post("/api/auth/reset-password", {
    token: link.searchParams.get("token"),
    newPassword: NEW_PASSWORD,
  });
  expect(reset.statusCode).toBe(200);
  const browser = await signIn(t, email, NEW_PASSWORD, freshIp());
  const code = await generate(browser);
  return { browser, typed: code.words.join(" ") };
}

describe("a SCIM token made before tokens were kept as an HMAC (docs/scim.md)", () => {
  it("keeps working with its plain SHA-256 row, which holds the HMAC from its first use on", async () => {
    const { org, scim, token } = await provisionedOrganisation();
    const stored = async () =>
      (await t.database.db.select().from(scimTokens).where(eq(scimTokens.organisationId, org.id)))[0]?.tokenHash;
    const hmacHash = await stored();
    // the row as the old scheme wrote it: the token's plain SHA-256, base64url
    const legacy = createHash("sha256").update(token).digest("base64url");
    expect(hmacHash).not.toBe(legacy);
    await t.database.db.update(scimTokens).set({ tokenHash: legacy }).where(eq(scimTokens.organisationId, org.id));

    expect((await scim.get("/Users")).statusCode).toBe(200);
    expect(await stored()).toBe(hmacHash);
    expect((await scim.get("/Users")).statusCode).toBe(200);
    const wrong = `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`;
    expect((await scimClient(wrong).get("/Users")).statusCode).toBe(401);
  });
});

describe("the SCIM token on the employer dashboard", () => {
  it("is shown once, replaces the previous one, is stored hashed, and every superuser is told by e-mail", async () => {
    const employer = await createEmployer(t);
    const other = await createUser(t, {
      email: uniqueEmail(employer.domain, "boss2"),
      role: "superuser",
      organisationId: employer.org.id,
    });
    const boss = await signedIn(t, employer.user);
    expect((await boss.get("/api/employer/scim")).json()).toEqual({
      baseUrl: "http://localhost:3000/api/scim/v2",
      tokenCreatedAt: null,
      lastUsedAt: null,
    });
    const first = (await boss.post("/api/employer/scim-token")).json().token as string;
    expect(first).toMatch(/^cpscim_[0-9a-f]{16}\.[A-Za-z0-9_-]{43}$/);
    await t.app.deps.background.idle();
    for (const to of [employer.user.email, other.email]) {
      expect(t.mail.to(to).some((m) => m.subject.includes("SCIM provisioning token"))).toBe(true);
    }
    expect(await tableText(t, "scim_tokens")).not.toContain(first.split(".")[1]);

    expect((await scimClient(first).get("/Users")).statusCode).toBe(200);
    const status = (await boss.get("/api/employer/scim")).json();
    expect(status.tokenCreatedAt).toBe(t.clock.now().toISOString());
    expect(status.lastUsedAt).toBe(t.clock.now().toISOString());

    const second = (await boss.post("/api/employer/scim-token")).json().token as string;
    expect((await scimClient(first).get("/Users")).statusCode).toBe(401);
    expect((await scimClient(second).get("/Users")).statusCode).toBe(200);
    expect((await boss.get("/api/employer/scim")).json().lastUsedAt).not.toBeNull();
  });

  it("needs a sign-in within the last 15 minutes", async () => {
    const employer = await createEmployer(t);
    const boss = await signedIn(t, employer.user);
    t.clock.advance(10 * 60_000);
    expect((await boss.get("/api/account")).statusCode).toBe(200); // the session stays alive
    t.clock.advance(6 * 60_000);
    const res = await boss.post("/api/employer/scim-token");
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toBe(SCIM_TEXT.needsRecentSignIn);
    expect(await tableText(t, "scim_tokens")).not.toContain(`"organisation_id":${employer.org.id},`);
  });

  it("is only a superuser's: an employee gets 403, signed out 401", async () => {
    const employer = await createEmployer(t);
    const staff = await createEmployee(t, employer.org.id, employer.domain);
    const browser = await signedIn(t, staff);
    expect((await browser.post("/api/employer/scim-token")).statusCode).toBe(403);
    expect((await browser.get("/api/employer/scim")).statusCode).toBe(403);
    expect((await new Browser(t.app).post("/api/employer/scim-token")).statusCode).toBe(401);
  });

  it("revoked: the token answers 401 at once", async () => {
    const { boss, scim } = await provisionedOrganisation();
    expect((await scim.get("/Users")).statusCode).toBe(200);
    expect((await boss.request("DELETE", "/api/employer/scim-token")).statusCode).toBe(200);
    const res = await scim.get("/Users");
    expect(res.statusCode).toBe(401);
    expect(res.headers["content-type"]).toMatch(/^application\/scim\+json/);
    expect(res.json()).toEqual({
      schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"],
      status: "401",
      detail: "A valid SCIM bearer token is required.",
    });
    expect((await boss.get("/api/employer/scim")).json().tokenCreatedAt).toBeNull();
    expect((await boss.request("DELETE", "/api/employer/scim-token")).statusCode).toBe(404);
  });
});

describe("the SCIM API's door", () => {
  it("401 without a token, with a wrong one, and for a deactivated organisation; 429 after 10 refusals per address", async () => {
    const { token, user } = await provisionedOrganisation();
    expect((await scimClient(null).get("/Users")).statusCode).toBe(401);
    expect((await scimClient(`${token.slice(0, -1)}x`).get("/Users")).statusCode).toBe(401);
    expect((await scimClient("cpscim_0000000000000000.nope").get("/ServiceProviderConfig")).statusCode).toBe(401);
    // Malformed bodies from strangers are refused at the door, before they are read.
    expect((await scimClient(null).post("/Users", "{not json")).statusCode).toBe(401);

    const ip = freshIp();
    const codes: number[] = [];
    for (let i = 0; i < 40; i++) codes.push((await scimClient(`cpscim_${i}`, ip).get("/Users")).statusCode);
    expect(codes.slice(0, 10).every((c) => c === 401)).toBe(true);
    expect(codes.slice(10).every((c) => c === 429)).toBe(true);
    const refusals = await auditRows(t, AUDIT_ACTIONS.scimAuth);
    // Audited sparsely: the 1st and the 10th refusal of the address (no row per request).
    expect(refusals.filter((r) => r.ip === ip).map((r) => r.detail?.refused)).toEqual([10, 1]);

    // An admin deactivates the employer: the organisation is deactivated and its token stops.
    const { browser: admin } = await signInAdmin(t);
    expect((await admin.post(`/api/admin/deactivate-employer/${user.id}`)).statusCode).toBe(200);
    expect((await scimClient(token).get("/Users")).statusCode).toBe(401);
  });

  it("serves the discovery documents", async () => {
    const { scim } = await provisionedOrganisation();
    const config = await scim.get("/ServiceProviderConfig");
    expect(config.statusCode).toBe(200);
    expect(config.headers["content-type"]).toMatch(/^application\/scim\+json/);
    expect(config.json()).toMatchObject({ patch: { supported: true }, filter: { supported: true } });
    expect((await scim.get("/ResourceTypes")).json().Resources[0]).toMatchObject({ id: "User", endpoint: "/Users" });
    expect((await scim.get("/Schemas")).json().Resources[0].id).toBe(SCIM_USER);
    const groups = await scim.get("/Groups");
    expect(groups.statusCode).toBe(404);
    expect(groups.json().schemas).toEqual(["urn:ietf:params:scim:api:messages:2.0:Error"]);
    // A client pushing groups (Okta's "Push Groups", Entra's group provisioning) gets the same SCIM 404.
    const pushed = await scim.post("/Groups", {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"],
      displayName: "Support",
      members: [],
    });
    expect(pushed.statusCode).toBe(404);
    expect(pushed.json().schemas).toEqual(["urn:ietf:params:scim:api:messages:2.0:Error"]);
  });
});

describe("an Okta provisioning conversation, as Okta sends it", () => {
  it("search, create, read, replace, deactivate (the code stops, the session ends), reactivate, delete", async () => {
    const { scim, domain, org } = await provisionedOrganisation();
    const email = `dana.okta@${domain}`;

    // Okta's "Test Connector Configuration"
    const probe = await scim.get("/Users?startIndex=1&count=2");
    expect(probe.statusCode).toBe(200);
    expect(probe.json()).toMatchObject({ schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"] });

    // Okta checks whether the user exists before creating it.
    const search = await scim.get(`${q(`userName eq "${email}"`)}&startIndex=1&count=100`);
    expect(search.json()).toEqual({
      schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"],
      totalResults: 0,
      startIndex: 1,
      itemsPerPage: 0,
      Resources: [],
    });

    const created = await scim.post("/Users", {
      schemas: [SCIM_USER],
      userName: email,
      name: { givenName: "Dana", familyName: "Okta" },
      emails: [{ primary: true, value: email, type: "work" }],
      displayName: "Dana Okta",
      locale: "en-US",
      externalId: "00ujl29u0le5T6Aj10h7",
      groups: [],
      password: "1mz050nq",
      active: true,
    });
    expect(created.statusCode).toBe(201);
    const user = created.json();
    expect(created.headers.location).toBe(`http://localhost:3000/api/scim/v2/Users/${user.id}`);
    expect(user).toEqual({
      schemas: [SCIM_USER],
      id: expect.stringMatching(/^\d+$/),
      externalId: "00ujl29u0le5T6Aj10h7",
      userName: email,
      // What Okta sent, no more: it sent no name.formatted.
      name: { givenName: "Dana", familyName: "Okta" },
      displayName: "Dana Okta",
      emails: [{ value: email, type: "work", primary: true }],
      active: true,
      meta: {
        resourceType: "User",
        created: t.clock.now().toISOString(),
        lastModified: t.clock.now().toISOString(),
        location: `http://localhost:3000/api/scim/v2/Users/${user.id}`,
      },
    });
    // Okta's password is never kept: the employee sets their own.
    expect(await tableText(t, "users")).not.toContain("1mz050nq");
    const [row] = await t.database.db
      .select()
      .from(users)
      .where(eq(users.id, Number(user.id)));
    expect(row).toMatchObject({ role: "client", status: "active", organisationId: org.id, fullName: "Dana Okta" });

    expect((await scim.get(q(`userName eq "${email.toUpperCase()}"`))).json().Resources).toHaveLength(1);
    expect((await scim.get(`/Users/${user.id}`)).json()).toEqual(user);

    // Okta PUTs the whole user, with the changed name.
    const replaced = await scim.put(`/Users/${user.id}`, {
      schemas: [SCIM_USER],
      id: user.id,
      userName: email,
      name: { givenName: "Dana", familyName: "Okta-Reyes" },
      emails: [{ primary: true, value: email, type: "work" }],
      displayName: "Dana Okta-Reyes",
      locale: "en-US",
      groups: [],
      active: true,
      meta: user.meta,
    });
    expect(replaced.statusCode).toBe(200);
    expect(replaced.json()).toMatchObject({
      displayName: "Dana Okta-Reyes",
      name: { givenName: "Dana", familyName: "Okta-Reyes" },
      externalId: "00ujl29u0le5T6Aj10h7",
    });

    // The employee signs in (a SCIM account sets its password with "Forgot your password?") and makes a code.
    const employee = await employeeSignsInWithACode(email);
    expect((await employee.browser.get("/api/client-info")).json().fullName).toBe("Dana Okta-Reyes");

    // Okta deactivates: {"op":"replace","value":{"active":false}}.
    const deactivated = await scim.patch(`/Users/${user.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: "replace", value: { active: false } }],
    });
    expect(deactivated.statusCode).toBe(200);
    expect(deactivated.json().active).toBe(false);
    expect((await verify(t, employee.typed)).json().verified).toBe(false);
    expect((await employee.browser.get("/api/auth/whoami")).statusCode).toBe(401);
    expect((await scim.get(q(`userName eq "${email}"`))).json().Resources[0].active).toBe(false);

    // Reactivated: sign-in comes back, the old code does not.
    const reactivated = await scim.patch(`/Users/${user.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: "replace", value: { active: true } }],
    });
    expect(reactivated.json().active).toBe(true);
    expect((await verify(t, employee.typed)).json().verified).toBe(false);
    const again = await signIn(t, email, NEW_PASSWORD, freshIp());
    expect((await again.get("/api/auth/whoami")).statusCode).toBe(200);

    // DELETE: the whole cascade, a 404 afterwards, and the userName free for a new account.
    const gone = await scim.delete(`/Users/${user.id}`);
    expect(gone.statusCode).toBe(204);
    expect((await again.get("/api/auth/whoami")).statusCode).toBe(401);
    expect((await scim.get(`/Users/${user.id}`)).statusCode).toBe(404);
    expect((await scim.get(q(`userName eq "${email}"`))).json().totalResults).toBe(0);
    const recreated = await scim.post("/Users", { schemas: [SCIM_USER], userName: email, active: true });
    expect(recreated.statusCode).toBe(201);
    expect(recreated.json().id).not.toBe(user.id);
    // The old record stays for the audit log.
    const [old] = await t.database.db
      .select()
      .from(users)
      .where(eq(users.id, Number(user.id)));
    expect(old).toMatchObject({ status: "deactivated", fullName: "Dana Okta-Reyes" });
    const [tombstone] = await t.database.db
      .select()
      .from(scimUsers)
      .where(eq(scimUsers.userId, Number(user.id)));
    expect(tombstone?.releasedUserName).toBe(email);

    const actions = (await auditRows(t, AUDIT_ACTIONS.scimDeactivateUser)).filter((r) => r.target === user.id);
    expect(actions.map((r) => [r.actorEmail, r.organisationId, r.outcome])).toEqual([
      ["scim", org.id, "success"],
      ["scim", org.id, "success"],
    ]);
  });
});

describe("a Microsoft Entra ID provisioning conversation, as Entra ID sends it", () => {
  it("externalId search, create, PATCH Replace with string booleans, work e-mail and name updates, delete", async () => {
    const { scim, domain } = await provisionedOrganisation();
    const objectId = "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef";
    const email = `lee.entra@${domain}`;

    // Entra ID's "Test connection": a user that does not exist.
    const probe = await scim.get(q('userName eq "f3d8c6a2-0b7e-4a57-9d1c-5e2f7b3a9c10"'));
    expect(probe.json().totalResults).toBe(0);
    expect((await scim.get("/Users/f3d8c6a2-0b7e-4a57-9d1c-5e2f7b3a9c10")).statusCode).toBe(404);

    expect((await scim.get(q(`externalId eq "${objectId}"`))).json().totalResults).toBe(0);
    const created = await scim.post("/Users", {
      schemas: [SCIM_USER, "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
      externalId: objectId,
      userName: email,
      active: true,
      emails: [{ primary: true, type: "work", value: email }],
      meta: { resourceType: "User" },
      name: { formatted: "Lee Entra", familyName: "Entra", givenName: "Lee" },
      roles: [],
      "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": { department: "Fraud" },
    });
    expect(created.statusCode).toBe(201);
    const id = created.json().id as string;
    const found = await scim.get(q(`externalId eq "${objectId}"`));
    expect(found.json().Resources.map((u: { id: string }) => u.id)).toEqual([id]);

    // A password-reset link mailed to the address before it changes.
    const stranger = new Browser(t.app, freshIp(), t.config.publicOrigin);
    await stranger.post("/api/auth/forgot-password", { email });
    await t.app.deps.background.idle();
    const oldLink = await t.mail.link(email, "/reset-password?token=");

    // The multi-attribute PATCH of Entra ID (without the aadOptscim062020 flag): "Replace", work e-mail path.
    const newEmail = `lee.entra-smith@${domain}`;
    const updated = await scim.patch(`/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: "Replace", path: "displayName", value: "Lee Entra-Smith" },
        { op: "Replace", path: 'emails[type eq "work"].value', value: newEmail },
        { op: "Replace", path: "name.givenName", value: "Lee" },
        { op: "Replace", path: "name.familyName", value: "Entra-Smith" },
        { op: "Replace", path: "externalId", value: objectId },
        {
          op: "Replace",
          path: "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber",
          value: "E-1042",
        },
      ],
    });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toMatchObject({
      userName: newEmail,
      emails: [{ value: newEmail, primary: true }],
      displayName: "Lee Entra-Smith",
      name: { givenName: "Lee", familyName: "Entra-Smith" },
    });

    // With the flag: a value object whose keys are paths.
    const flagged = await scim.patch(`/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [
        {
          op: "replace",
          value: { displayName: "Lee E. Smith", "name.givenName": "Lee E.", "name.familyName": "Smith" },
        },
      ],
    });
    expect(flagged.json()).toMatchObject({
      displayName: "Lee E. Smith",
      name: { formatted: "Lee Entra", givenName: "Lee E.", familyName: "Smith" },
    });

    // The link mailed to the old address stopped working with the change.
    const stale = await stranger.post("/api/auth/reset-password", {
      token: oldLink.searchParams.get("token"),
      newPassword: "Someone-Else-33",
    });
    expect(stale.statusCode).toBe(400);
    const employee = await employeeSignsInWithACode(newEmail);

    // Entra ID deactivates with the string "False".
    const disabled = await scim.patch(`/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: "Replace", path: "active", value: "False" }],
    });
    expect(disabled.statusCode).toBe(200);
    expect(disabled.json().active).toBe(false);
    expect((await verify(t, employee.typed)).json().verified).toBe(false);
    expect((await employee.browser.get("/api/auth/whoami")).statusCode).toBe(401);

    const enabled = await scim.patch(`/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: "Replace", path: "active", value: "True" }],
    });
    expect(enabled.json().active).toBe(true);

    expect((await scim.delete(`/Users/${id}`)).statusCode).toBe(204);
    expect((await scim.get(`/Users/${id}`)).statusCode).toBe(404);
    expect((await scim.get(q(`externalId eq "${objectId}"`))).json().totalResults).toBe(0);
    expect((await scim.delete(`/Users/${id}`)).statusCode).toBe(404);
  });
});

describe("what SCIM may touch", () => {
  it("a token never reads or changes another organisation's users", async () => {
    const a = await provisionedOrganisation();
    const b = await provisionedOrganisation();
    const bob = (await b.scim.post("/Users", { schemas: [SCIM_USER], userName: `bob@${b.domain}` })).json();
    const bStaff = await createEmployee(t, b.org.id, b.domain);

    for (const id of [bob.id, String(bStaff.id)]) {
      expect((await a.scim.get(`/Users/${id}`)).statusCode).toBe(404);
      expect(
        (
          await a.scim.patch(`/Users/${id}`, {
            schemas: [PATCH_OP],
            Operations: [{ op: "replace", value: { active: false } }],
          })
        ).statusCode,
      ).toBe(404);
      expect((await a.scim.put(`/Users/${id}`, { schemas: [SCIM_USER], userName: `x@${a.domain}` })).statusCode).toBe(
        404,
      );
      expect((await a.scim.delete(`/Users/${id}`)).statusCode).toBe(404);
    }
    expect((await a.scim.get(q(`userName eq "${bob.userName}"`))).json().totalResults).toBe(0);
    expect((await a.scim.get("/Users")).json().Resources).toEqual([]);
    // Nor can it create one on B's domain.
    const foreign = await a.scim.post("/Users", { schemas: [SCIM_USER], userName: `eve@${b.domain}` });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().scimType).toBe("invalidValue");
    // B's people are untouched.
    expect((await b.scim.get(`/Users/${bob.id}`)).json().active).toBe(true);
    const [staff] = await t.database.db.select().from(users).where(eq(users.id, bStaff.id));
    expect(staff?.status).toBe("active");
  });

  it("sees only client accounts: never a superuser or an admin; never changes a role", async () => {
    const { scim, user: boss, domain } = await provisionedOrganisation();
    const staff = await createEmployee(t, boss.organisationId ?? 0, domain);
    expect((await scim.get(`/Users/${boss.id}`)).statusCode).toBe(404);
    const listed = (await scim.get("/Users")).json();
    expect(listed.Resources.map((u: { id: string }) => u.id)).toEqual([String(staff.id)]);
    const taken = await scim.post("/Users", { schemas: [SCIM_USER], userName: boss.email });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().scimType).toBe("uniqueness");
    // An existing employee found by userName (Okta links it) is managed like the others, still a client.
    const renamed = await scim.patch(`/Users/${staff.id}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: "add", path: "name", value: { givenName: "Sam", familyName: "Staff" } },
        { op: "add", path: "roles", value: [{ value: "admin" }] },
      ],
    });
    expect(renamed.statusCode).toBe(200);
    const [row] = await t.database.db.select().from(users).where(eq(users.id, staff.id));
    expect(row).toMatchObject({ role: "client", fullName: "Sam Staff" });
  });

  it("reactivates only accounts SCIM deactivated", async () => {
    const { scim, boss, org, domain } = await provisionedOrganisation();
    const staff = await createEmployee(t, org.id, domain);
    expect((await boss.post(`/api/employer/deactivate-employee/${staff.id}`)).statusCode).toBe(200);
    const res = await scim.patch(`/Users/${staff.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: "replace", path: "active", value: true }],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().scimType).toBe("mutability");
    const [row] = await t.database.db.select().from(users).where(eq(users.id, staff.id));
    expect(row?.status).toBe("deactivated");
  });

  it("refuses bad input with the SCIM error schema and changes nothing", async () => {
    const { scim, domain } = await provisionedOrganisation();
    const cases: [unknown, number, string][] = [
      [{ schemas: [SCIM_USER], userName: "someone@elsewhere.example" }, 400, "invalidValue"],
      [{ schemas: [SCIM_USER], userName: `zoë@${domain}` }, 400, "invalidValue"],
      [{ schemas: [SCIM_USER], userName: "not an e-mail" }, 400, "invalidValue"],
      [{ schemas: [SCIM_USER] }, 400, "invalidValue"],
      [{ schemas: [SCIM_USER], userName: `a@${domain}`, displayName: "x".repeat(101) }, 400, "invalidValue"],
      [{ schemas: [SCIM_USER], userName: `a@${domain}`, displayName: "Evil\u202Eman" }, 400, "invalidValue"],
      [{ schemas: [SCIM_USER], userName: `a@${domain}`, active: "maybe" }, 400, "invalidValue"],
      [{ schemas: [SCIM_USER], userName: `a@${domain}`, externalId: "x".repeat(256) }, 400, "invalidValue"],
      [{ schemas: ["urn:other"], userName: `a@${domain}` }, 400, "invalidSyntax"],
      [[1, 2, 3], 400, "invalidSyntax"],
    ];
    for (const [body, status, scimType] of cases) {
      const res = await scim.post("/Users", body);
      expect([res.statusCode, res.json().scimType], JSON.stringify(body)).toEqual([status, scimType]);
      expect(res.json().schemas).toEqual(["urn:ietf:params:scim:api:messages:2.0:Error"]);
    }
    expect((await scim.get("/Users")).json().totalResults).toBe(0);
    const malformed = await scim.post("/Users", "{nope");
    expect(malformed.statusCode).toBe(400);
    expect((await scim.get(q('displayName co "x"'))).json().scimType).toBe("invalidFilter");
    const user = (await scim.post("/Users", { schemas: [SCIM_USER], userName: `b@${domain}` })).json();
    const badOp = await scim.patch(`/Users/${user.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: "move", path: "active" }],
    });
    expect([badOp.statusCode, badOp.json().scimType]).toEqual([400, "invalidSyntax"]);
    const removeMail = await scim.patch(`/Users/${user.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: "Remove", path: 'emails[type eq "work"].value' }],
    });
    expect([removeMail.statusCode, removeMail.json().scimType]).toEqual([400, "mutability"]);
    // A half-bad PATCH changes nothing: the first operation is not kept.
    const half = await scim.patch(`/Users/${user.id}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: "replace", path: "displayName", value: "Kept Out" },
        { op: "replace", path: "userName", value: "b@elsewhere.example" },
      ],
    });
    expect(half.statusCode).toBe(400);
    // (A POST without displayName has none: the first operation would have set it.)
    expect((await scim.get(`/Users/${user.id}`)).json().displayName).toBeUndefined();
    // Paging
    await scim.post("/Users", { schemas: [SCIM_USER], userName: `c@${domain}` });
    const page = (await scim.get("/Users?startIndex=2&count=1")).json();
    expect([page.totalResults, page.startIndex, page.itemsPerPage, page.Resources[0].userName]).toEqual([
      2,
      2,
      1,
      `c@${domain}`,
    ]);
  });
});

describe("deprovisioning is immediate", () => {
  it("from the SCIM deactivation call to a refused look-up of the employee's live code", async () => {
    const { scim, domain } = await provisionedOrganisation();
    const email = `fast.leaver@${domain}`;
    const id = (await scim.post("/Users", { schemas: [SCIM_USER], userName: email })).json().id as string;
    const employee = await employeeSignsInWithACode(email);
    const started = performance.now();
    const res = await scim.patch(`/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: "replace", value: { active: false } }],
    });
    const lookup = await verify(t, employee.typed);
    const elapsedMs = performance.now() - started;
    expect(res.statusCode).toBe(200);
    expect(lookup.json().verified).toBe(false);
    console.info(`SCIM deactivation to refused look-up: ${elapsedMs.toFixed(1)} ms`);
    expect(elapsedMs).toBeLessThan(1000);
  });
});

describe("erasure and SCIM", () => {
  it("erases SCIM's attributes, and SCIM answers 404 for the erased account", async () => {
    const { scim, domain } = await provisionedOrganisation();
    const email = `to.erase@${domain}`;
    const user = (
      await scim.post("/Users", {
        schemas: [SCIM_USER],
        // In another letter case: SCIM keeps the userName as written beside the account's e-mail.
        userName: `To.Erase@${domain}`,
        externalId: "ext-erase-me",
        name: { givenName: "Tobe", familyName: "Erased" },
      })
    ).json();
    // The employee's export holds what SCIM did to their account.
    const employee = await employeeSignsInWithACode(email);
    const exported = (await employee.browser.get("/api/account/export")).json() as {
      auditEvents: { action: string }[];
    };
    expect(exported.auditEvents.map((e) => e.action)).toContain(AUDIT_ACTIONS.scimCreateUser);
    await checkpointAudit(t.app.deps);

    const { browser: admin } = await signInAdmin(t);
    expect((await admin.post(`/api/admin/accounts/${user.id}/erase`)).statusCode).toBe(200);
    await checkpointAudit(t.app.deps);
    const chain = await verifyAudit(t.database.db, t.config.appSecret);
    expect(chain).toMatchObject({ intact: true });
    expect((await scim.get(`/Users/${user.id}`)).statusCode).toBe(404);
    expect((await scim.get(q('externalId eq "ext-erase-me"'))).json().totalResults).toBe(0);
    const stored = await tableText(t, "scim_users");
    for (const personal of ["ext-erase-me", "Tobe", "Erased"]) expect(stored).not.toContain(personal);
    expect(stored.toLowerCase()).not.toContain(email);
    // The userName is free again.
    expect((await scim.post("/Users", { schemas: [SCIM_USER], userName: email })).statusCode).toBe(201);
  });

  it("erases the e-mail a SCIM DELETE released from the audit log", async () => {
    const { scim, domain } = await provisionedOrganisation();
    const email = `released@${domain}`;
    const user = (await scim.post("/Users", { schemas: [SCIM_USER], userName: email })).json();
    await new Browser(t.app, freshIp(), t.config.publicOrigin).post("/api/auth/forgot-password", { email });
    await t.app.deps.background.idle();
    expect((await scim.delete(`/Users/${user.id}`)).statusCode).toBe(204);
    const { browser: admin } = await signInAdmin(t);
    expect((await admin.post(`/api/admin/accounts/${user.id}/erase`)).statusCode).toBe(200);
    expect(await tableText(t, "scim_users")).not.toContain(email);
    expect(await tableText(t, "audit_log")).not.toContain(email);
    expect((await t.database.db.select().from(scimTokens)).length).toBeGreaterThan(0);
  });
});

describe("what reaches the log", () => {
  it("never the bearer token, nor the e-mail of a filter, nor a password Okta sends", async () => {
    const lines: string[] = [];
    const logged = await buildTestApp({
      database: t.database,
      clock: t.clock,
      env: TRUST_PROXY_ENV,
      log: (l) => lines.push(l),
    });
    try {
      const employer = await createEmployer(t);
      const boss = new Browser(logged.app, freshIp(), t.config.publicOrigin);
      expect(
        (await boss.post("/api/auth/login", { email: employer.user.email, password: employer.user.password }))
          .statusCode,
      ).toBe(200);
      const code = await logged.mail.signInCode(employer.user.email);
      expect((await boss.post("/api/auth/verify-2fa", { email: employer.user.email, code })).statusCode).toBe(200);
      const token = (await boss.post("/api/employer/scim-token")).json().token as string;
      const email = `logged.person@${employer.domain}`;
      const headers = { authorization: `Bearer ${token}`, "content-type": "application/scim+json" };
      await logged.app.inject({
        method: "POST",
        url: "/api/scim/v2/Users",
        headers,
        payload: JSON.stringify({ schemas: [SCIM_USER], userName: email, password: "Okta-Sent-This-1" }),
      });
      const found = await logged.app.inject({ url: `/api/scim/v2${q(`userName eq "${email}"`)}`, headers });
      expect(found.json().totalResults).toBe(1);
      await logged.app.deps.background.idle();
      const text = lines.join("\n");
      expect(text).toContain("/api/scim/v2/Users?filter=[redacted]");
      for (const secret of [token, token.split(".")[1] ?? "", email, "Okta-Sent-This-1"])
        expect(text).not.toContain(secret);
    } finally {
      await logged.close();
    }
  });
});

describe("erasure after the userName was taken again", () => {
  it("erasing the old account leaves the new account's events naming that e-mail", async () => {
    const { scim, domain } = await provisionedOrganisation();
    const email = `rehired@${domain}`;
    const old = (await scim.post("/Users", { schemas: [SCIM_USER], userName: email })).json();
    expect((await scim.delete(`/Users/${old.id}`)).statusCode).toBe(204);
    const rehired = (await scim.post("/Users", { schemas: [SCIM_USER], userName: email })).json();
    await new Browser(t.app, freshIp(), t.config.publicOrigin).post("/api/auth/forgot-password", { email });
    await t.app.deps.background.idle();
    const { browser: admin } = await signInAdmin(t);
    expect((await admin.post(`/api/admin/accounts/${old.id}/erase`)).statusCode).toBe(200);
    const forgot = (await auditRows(t, AUDIT_ACTIONS.forgotPassword)).find((r) => r.actorId === Number(rehired.id));
    expect(forgot?.actorEmail).toBe(email);
    expect((await scim.get(`/Users/${rehired.id}`)).json().userName).toBe(email);
  });
});

describe("erasure and the audit chain", () => {
  it("stays intact when the erased person's events were performed by someone else (an employer's deactivation)", async () => {
    const employer = await createEmployer(t);
    const boss = await signedIn(t, employer.user);
    const staff = await createEmployee(t, employer.org.id, employer.domain);
    expect((await boss.post(`/api/employer/deactivate-employee/${staff.id}`)).statusCode).toBe(200);
    await checkpointAudit(t.app.deps);
    const { browser: admin } = await signInAdmin(t);
    expect((await admin.post(`/api/admin/accounts/${staff.id}/erase`)).statusCode).toBe(200);
    await checkpointAudit(t.app.deps);
    expect(await verifyAudit(t.database.db, t.config.appSecret)).toMatchObject({ intact: true });
    expect(await tableText(t, "audit_log")).not.toContain(staff.email);
  });
});

describe("more of what providers send", () => {
  it("PUT with active false deactivates and with active true reactivates (Okta's AIW apps)", async () => {
    const { scim, domain } = await provisionedOrganisation();
    const email = `put.person@${domain}`;
    const user = (await scim.post("/Users", { schemas: [SCIM_USER], userName: email })).json();
    const put = (active: boolean) =>
      scim.put(`/Users/${user.id}`, { schemas: [SCIM_USER], userName: email, name: { givenName: "Put" }, active });
    expect((await put(false)).json().active).toBe(false);
    const [row] = await t.database.db
      .select()
      .from(users)
      .where(eq(users.id, Number(user.id)));
    expect(row?.status).toBe("deactivated");
    expect((await put(true)).json()).toMatchObject({ active: true, name: { givenName: "Put" } });
    const [after] = await t.database.db
      .select()
      .from(users)
      .where(eq(users.id, Number(user.id)));
    expect(after?.fullName).toBe("Put");
  });

  it("an address under a subdomain another organisation owns belongs to that organisation", async () => {
    const parent = await provisionedOrganisation();
    await createEmployer(t, { domain: `cards.${parent.domain}` });
    expect(
      (await parent.scim.post("/Users", { schemas: [SCIM_USER], userName: `ann@eu.${parent.domain}` })).statusCode,
    ).toBe(201);
    const refused = await parent.scim.post("/Users", { schemas: [SCIM_USER], userName: `ann@cards.${parent.domain}` });
    expect([refused.statusCode, refused.json().scimType]).toEqual([400, "invalidValue"]);
  });
});
