import { users } from "@server/db/schema";
import { API_KEY_TEXT } from "@shared/api-keys";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { auditRows, createEmployer, TRUST_PROXY_ENV } from "@test/fixtures";
import { buildTestApp, createUser, signedIn, type TestApp } from "@test/helpers";
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, expect, it } from "vitest";

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp({ env: TRUST_PROXY_ENV });
});
afterEach(async () => {
  await t?.close();
});

// Issue 32 L8: a code speaks for a person whose address was proved; an integration cannot have one issued
// for an account whose e-mail was never verified (404, as for an unknown employee: CONTRACT, /api/v1/codes).
it("POST /api/v1/codes is 404 for an active employee whose e-mail was never verified, and issues once it is", async () => {
  const employer = await createEmployer(t);
  const boss = await signedIn(t, employer.user);
  const key = (await boss.post("/api/employer/api-keys", { name: "desk", scopes: ["codes:write"] })).json()
    .key as string;
  const unverified = await createUser(t, {
    organisationId: employer.org.id,
    email: `unproved@${employer.domain}`,
    verified: false,
  });
  const issue = () =>
    t.app.inject({
      method: "POST",
      url: "/api/v1/codes",
      headers: { "x-forwarded-for": "192.0.2.10", authorization: `Bearer ${key}` },
      payload: { employeeEmail: unverified.email },
    });

  const refused = await issue();
  expect(refused.statusCode).toBe(404);
  expect(refused.json()).toEqual({ message: API_KEY_TEXT.employeeNotFound, code: "api.employee_not_found" });
  expect(await auditRows(t, AUDIT_ACTIONS.generateCode)).toEqual([]);

  // the address proved (as the verification link does)
  await t.database.db.update(users).set({ emailVerifiedAt: t.clock.now() }).where(eq(users.id, unverified.id));
  expect((await issue()).statusCode).toBe(201);
});
