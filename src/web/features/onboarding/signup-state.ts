/** What the access-code pages hand to the registration forms in the navigation state. */
export type EmployerSignupState = { code: string; email: string };
export type EmployeeSignupState = { code: string; companyDomain: string; website: string };

const text = (value: unknown): value is string => typeof value === "string" && value.trim() !== "";

export function readEmployerSignupState(state: unknown): EmployerSignupState | null {
  if (!state || typeof state !== "object") return null;
  const { code, email } = state as Record<string, unknown>;
  return text(code) && text(email) ? { code, email } : null;
}

export function readEmployeeSignupState(state: unknown): EmployeeSignupState | null {
  if (!state || typeof state !== "object") return null;
  const { code, companyDomain, website } = state as Record<string, unknown>;
  if (!text(code) || !text(companyDomain)) return null;
  return { code, companyDomain: companyDomain.toLowerCase(), website: typeof website === "string" ? website : "" };
}
