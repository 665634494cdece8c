import { describe, expect, it } from "vitest";
import { MESSAGES } from "./messages";
import { emailSchema, meetsPasswordRules, newPasswordSchema, normaliseEmail } from "./validation";

describe("the password rule shared by both sign-up forms, the account page and the server", () => {
  it("needs 8 characters, an upper-case letter (any script) and a special character", () => {
    expect(meetsPasswordRules("Correct-Horse")).toBe(true);
    expect(meetsPasswordRules("Ünïcödé#pass")).toBe(true);
    expect(meetsPasswordRules("Short-1")).toBe(false);
    expect(meetsPasswordRules("no-capital-letter")).toBe(false);
    expect(meetsPasswordRules("NoSpecialAtAll1")).toBe(false);
  });

  it("does not count white space as the special character, for employers and employees alike", () => {
    // A space is invisible, easily lost when pasting, and not what people mean by "a special character".
    for (const password of ["Correct horse", "Correct\thorse", "Correct\u00A0horse"]) {
      expect(meetsPasswordRules(password)).toBe(false);
      expect(newPasswordSchema("employee").safeParse(password).error?.issues[0]?.message).toBe(
        MESSAGES.employeePasswordRules,
      );
      expect(newPasswordSchema("employer").safeParse(password).error?.issues[0]?.message).toBe(
        MESSAGES.employerPasswordRules,
      );
    }
    // A space alongside a symbol is fine.
    expect(meetsPasswordRules("Correct horse!")).toBe(true);
  });
});

describe("the one e-mail rule for every address from outside", () => {
  it("checks ASCII on the value as it came, before lower-casing or trimming map other characters onto ASCII", () => {
    // The Kelvin sign lower-cases to "k", and trim() drops a no-break space: neither may stand for kate@.
    expect("\u212A".toLowerCase()).toBe("k");
    expect(normaliseEmail("\u212Aate@beta.test")).toBeNull();
    expect(normaliseEmail("kate@beta.test\u00a0")).toBeNull();
    expect(normaliseEmail("kate\u0000@beta.test")).toBeNull();
    expect(emailSchema.safeParse("\u212Aate@beta.test").error?.issues[0]?.message).toBe("Enter a valid email address.");
    expect(normaliseEmail(" Kate@Beta.TEST ")).toBe("kate@beta.test");
    expect(normaliseEmail(42)).toBeNull();
    expect(normaliseEmail("x".repeat(100_000))).toBeNull();
  });
});
