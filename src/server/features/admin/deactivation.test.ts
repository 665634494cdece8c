import { users } from "@server/db/schema";
import { ADMIN_MESSAGES } from "@shared/admin";
import { MESSAGES } from "@shared/messages";
import { auditRows, createEmployee, createEmployer, generate, signInAdmin, verify } from "@test/fixtures";
import { buildTestApp, signedIn, type TestApp } from "@test/helpers";
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, expect, it } from "vitest";

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp();
});
afterEach(async () => {
  await t?.close();
});

it("deactivating an employer deactivates and signs out every account of its organisation; their codes stop verifying", async () => {
  const { org, user: boss, domain } = await createEmployer(t);
  const staff = await Promise.all([createEmployee(t, org.id, domain), createEmployee(t, org.id, domain)]);
  const bossBrowser = await signedIn(t, boss);
  const staffBrowsers = await Promise.all(staff.map((s) => signedIn(t, s)));
  const codes = await Promise.all(staffBrowsers.map((b) => generate(b)));
  // another organisation is untouched
  const other = await createEmployer(t);
  const outsider = await createEmployee(t, other.org.id, other.domain);
  const outsiderBrowser = await signedIn(t, outsider);

  const { browser: admin, admin: adminUser } = await signInAdmin(t);
  const res = await admin.post(`/api/admin/deactivate-employer/${boss.id}`);
  expect(res.statusCode).toBe(200);
  expect(res.json()).toEqual({ message: ADMIN_MESSAGES.employerDeactivated, count: 3 });

  for (const b of [bossBrowser, ...staffBrowsers]) expect((await b.get("/api/auth/whoami")).statusCode).toBe(401);
  for (const s of staff) {
    const [row] = await t.database.db.select().from(users).where(eq(users.id, s.id));
    expect(row?.status).toBe("deactivated");
  }
  for (const { words } of codes) {
    expect((await verify(t, words.join(" "))).json()).toEqual({ verified: false, message: MESSAGES.codeNotVerified });
  }
  expect((await outsiderBrowser.get("/api/auth/whoami")).statusCode).toBe(200);
  expect((await auditRows(t, "admin.deactivate-employer"))[0]).toMatchObject({
    outcome: "success",
    actorId: adminUser.id,
    organisationId: org.id,
    detail: expect.objectContaining({ count: 3 }),
  });
});
