import { users } from "@server/db/schema";
import { anonymous, TRUST_PROXY_ENV } from "@test/fixtures";
import { buildTestApp, GOOD_PASSWORD, type TestApp } from "@test/helpers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp({ env: TRUST_PROXY_ENV });
});
afterEach(async () => {
  await t?.close();
});

const employee = (fullName: string) => ({
  email: "ann@acme.example",
  password: GOOD_PASSWORD,
  fullName,
  accessCode: "ABCD-EFGH",
});

const employer = (fullName: string, companyName: string) => ({
  fullName,
  companyName,
  website: "acme.example",
  email: "boss@acme.example",
  password: GOOD_PASSWORD,
  confirmPassword: GOOD_PASSWORD,
  role: "superuser",
  accessCode: "ABCD-EFGH",
});

describe("names", () => {
  it.each([
    ["a right-to-left override", "Ann \u202Exebolg"],
    ["a newline", "Ann\nVerified: Globex Bank"],
    ["a zero-width space", "Gl\u200Bobex"],
    ["a control character", "Ann\u0007"],
    ["a line separator (U+2028)", "Ann\u2028Verified: Globex Bank"],
    ["a paragraph separator (U+2029)", "Ann\u2029Globex"],
    ["101 characters", "A".repeat(101)],
  ])("refuses %s in a full or company name with a 400, creating nothing", async (_what, name) => {
    const anon = anonymous(t);
    const res = await anon.post("/api/auth/register-employee", employee(name));
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/^Full name must/);
    const company = await anon.post("/api/employer/auth/register-employer", employer("Bea Boss", name));
    expect(company.statusCode).toBe(400);
    expect(company.json().message).toMatch(/^Company name must/);
    expect(await t.database.db.select().from(users)).toHaveLength(0);
  });

  it("accepts names in any script, with accents and apostrophes", async () => {
    for (const name of ["Zoë O'Brien-Łukasiewicz", "山田 太郎", "أحمد"]) {
      const res = await anonymous(t).post("/api/auth/register-employee", employee(name));
      // past the name check: the made-up access code is what fails
      expect(res.json().message).not.toMatch(/name/i);
    }
  });
});
