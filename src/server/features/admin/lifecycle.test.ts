import { ssoLinks } from "@server/db/schema";
import { FEATURES } from "@server/features";
import type { Feature } from "@server/features/feature";
import { createEmployee, createEmployer, freshIp, generate, signInAdmin, tableText } from "@test/fixtures";
import { Browser, buildTestApp, createUser, signIn, type TestApp } from "@test/helpers";
import { sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp();
});
afterEach(async () => {
  await t?.close();
});

const SCIM_USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

/** A feature added to this app's registry that notes whom each deactivation was about. */
function deactivationProbe() {
  const seen: number[][] = [];
  const probe: Feature = {
    name: "probe",
    purpose: "notes the deactivation cascade's calls",
    onDeactivated: async (_deps, userIds) => {
      seen.push([...userIds]);
    },
  };
  (t.app.deps.features as Feature[]).push(probe);
  return seen;
}

/** An identity provider calling /api/scim/v2 with the organisation's bearer token. */
function scimClient(token: string) {
  const ip = freshIp();
  return (method: "POST" | "PATCH" | "DELETE", url: string, body?: unknown) =>
    t.app.inject({
      method,
      url: `/api/scim/v2${url}`,
      headers: {
        authorization: `Bearer ${token}`,
        "x-forwarded-for": ip,
        ...(body === undefined ? {} : { "content-type": "application/scim+json" }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
}

describe("deactivation runs every feature's onDeactivated, on every path", () => {
  it("the employer deactivating an employee, SCIM deactivating and deleting one, the admin's deactivations and erasure", async () => {
    const seen = deactivationProbe();
    const employer = await createEmployer(t);
    const boss = await signIn(t, employer.user.email);

    // The employer.
    const leaver = await createEmployee(t, employer.org.id, employer.domain);
    expect((await boss.post(`/api/employer/deactivate-employee/${leaver.id}`)).statusCode).toBe(200);
    expect(seen).toEqual([[leaver.id]]);

    // SCIM: active false, then DELETE of an active account.
    const token = (await boss.post("/api/employer/scim-token")).json().token as string;
    const scim = scimClient(token);
    const patched = (await scim("POST", "/Users", { schemas: [SCIM_USER], userName: `p@${employer.domain}` })).json();
    const deleted = (await scim("POST", "/Users", { schemas: [SCIM_USER], userName: `d@${employer.domain}` })).json();
    const patch = await scim("PATCH", `/Users/${patched.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: "replace", value: { active: false } }],
    });
    expect(patch.statusCode, patch.body).toBe(200);
    expect((await scim("DELETE", `/Users/${deleted.id}`)).statusCode).toBe(204);
    expect(seen.slice(1)).toEqual([[Number(patched.id)], [Number(deleted.id)]]);

    // The admin: erasure, then the whole organisation.
    const { browser: admin } = await signInAdmin(t);
    const erased = await createEmployee(t, employer.org.id, employer.domain);
    expect((await admin.post(`/api/admin/accounts/${erased.id}/erase`)).statusCode).toBe(200);
    expect(seen.at(-1)).toEqual([erased.id]);
    const staying = await createEmployee(t, employer.org.id, employer.domain);
    expect((await admin.post(`/api/admin/deactivate-employer/${employer.user.id}`)).statusCode).toBe(200);
    expect([...(seen.at(-1) ?? [])].sort()).toEqual([employer.user.id, staying.id].sort());
  });

  it("a step that fails does not stop the others (the API keys' revocation still runs)", async () => {
    (t.app.deps.features as Feature[]).unshift({
      name: "failing",
      purpose: "fails its deactivation step",
      onDeactivated: async () => {
        throw new Error("this step fails");
      },
    });
    const employer = await createEmployer(t);
    const deputy = await createUser(t, {
      role: "superuser",
      organisationId: employer.org.id,
      email: `deputy@${employer.domain}`,
    });
    const asDeputy = await signIn(t, deputy.email);
    const key = (
      await asDeputy.post("/api/employer/api-keys", { name: "Deputy's key", scopes: ["activity:read"] })
    ).json();
    const v1 = () =>
      t.app.inject({ method: "GET", url: "/api/v1/activity", headers: { authorization: `Bearer ${key.key}` } });
    expect((await v1()).statusCode).toBe(200);
    const { browser: admin } = await signInAdmin(t);
    expect((await admin.post(`/api/admin/accounts/${deputy.id}/erase`)).statusCode).toBe(200);
    expect((await v1()).statusCode).toBe(401);
  });
});

describe("erasure clears every table a feature's erase claims", () => {
  it("a SCIM-provisioned employee with an SSO link, codes, a reset link and sessions, and a superuser with an API key", async () => {
    const employer = await createEmployer(t);
    const boss = await signIn(t, employer.user.email);
    const token = (await boss.post("/api/employer/scim-token")).json().token as string;
    const scim = scimClient(token);
    const email = `alice.provisioned@${employer.domain}`;
    const alice = (
      await scim("POST", "/Users", {
        schemas: [SCIM_USER],
        userName: email,
        externalId: "ext-alice-provisioned",
        name: { givenName: "Alice", familyName: "Provisioned" },
      })
    ).json();
    const aliceId = Number(alice.id);
    // Her single sign-on link (as a first sign-in through the identity provider leaves it).
    await t.database.db.insert(ssoLinks).values({
      userId: aliceId,
      organisationId: employer.org.id,
      issuer: "https://idp.example.test",
      subject: "sub-alice-provisioned",
      createdAt: t.clock.now(),
    });
    // A reset link, a session and a live code.
    const anonymous = new Browser(t.app, freshIp(), t.config.publicOrigin);
    expect((await anonymous.post("/api/auth/forgot-password", { email })).statusCode).toBe(200);
    await t.app.deps.background.idle();
    const link = await t.mail.link(email, "/reset-password?token=");
    const newPassword = "Fresh-Start-91";
    await anonymous.post("/api/auth/reset-password", { token: link.searchParams.get("token"), newPassword });
    await anonymous.post("/api/auth/forgot-password", { email });
    await t.app.deps.background.idle();
    await generate(await signIn(t, email, newPassword, freshIp()));

    // A superuser with an API key.
    const bob = await createUser(t, {
      role: "superuser",
      organisationId: employer.org.id,
      email: `bob.keyholder@${employer.domain}`,
      fullName: "Bob Keyholder",
    });
    const asBob = await signIn(t, bob.email);
    expect(
      (await asBob.post("/api/employer/api-keys", { name: "Bob's key", scopes: ["activity:read"] })).statusCode,
    ).toBe(201);

    const { browser: admin } = await signInAdmin(t);
    expect((await admin.post(`/api/admin/accounts/${aliceId}/erase`)).statusCode).toBe(200);
    expect((await admin.post(`/api/admin/accounts/${bob.id}/erase`)).statusCode).toBe(200);

    const claimed = FEATURES.flatMap((f) => [
      ...(f.erase ? (f.tables ?? []) : []),
      ...Object.keys(f.erasureKeeps ?? {}),
    ]);
    expect(claimed).toEqual(expect.arrayContaining(["sso_links", "scim_users", "api_keys", "verification_tokens"]));
    for (const table of claimed) {
      const text = await tableText(t, table);
      const personal = [
        email,
        "ext-alice-provisioned",
        "sub-alice-provisioned",
        "Alice",
        "Provisioned",
        bob.email,
        "Bob Keyholder",
      ];
      for (const value of personal) {
        expect(text, `${table} after erasure`).not.toContain(value);
      }
    }
    const links = await t.database.db.rows<{ n: number }>(
      sql`select count(*)::int as n from sso_links where user_id = ${aliceId}`,
    );
    expect(links[0]?.n).toBe(0);
  });
});
