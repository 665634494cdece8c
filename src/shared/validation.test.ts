import { describe, expect, it } from "vitest";
import { MESSAGES } from "./messages";
import { meetsPasswordRules, newPasswordSchema } from "./validation";

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
