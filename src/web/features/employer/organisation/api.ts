import { queryOf, send } from "@web/lib/api";
import { usePagedList } from "@web/lib/paged-list";
import { useApi } from "@web/lib/use-api";
import { useCallback } from "react";

/** The employer feature's calls: the organisation's profile, its active users and its employee access code. */
export const organisationApi = {
  me: () => send("getEmployerProfile"),
  employees: (q: string, page: number) => send("listEmployees", { params: { query: queryOf({ q, page }) } }),
  accessCode: () => send("getAccessCode"),
  generateAccessCode: (maxUsers: number) => send("generateAccessCode", { body: { maxUsers } }),
  deactivateEmployee: (id: number) => send("deactivateEmployee", { params: { path: { id: String(id) } } }),
};

export type EmployerProfile = Awaited<ReturnType<typeof organisationApi.me>>;

/**
 * The overview's data: profile, employees and the current access code load together (as the specification
 * says); the employee list then pages by itself, and the code reloads after a new one is generated.
 */
export function useOrganisationOverview() {
  const employees = usePagedList(organisationApi.employees, { what: "employees", filters: "" });
  const { claim } = employees;
  const overview = useApi(
    async () => {
      const acceptEmployees = claim();
      const [profile, list, accessCode] = await Promise.all([
        organisationApi.me(),
        organisationApi.employees("", 1),
        organisationApi.accessCode(),
      ]);
      acceptEmployees(list, 1);
      return { profile, accessCode: accessCode ?? null };
    },
    [claim],
    { what: "employer dashboard" },
  );
  const { setData } = overview;

  const reloadAccessCode = useCallback(async () => {
    try {
      const accessCode = (await organisationApi.accessCode()) ?? null;
      setData((now) => now && { ...now, accessCode });
    } catch (error) {
      console.error("Could not reload the access code", error);
    }
  }, [setData]);

  return { ...overview, employees, reloadAccessCode };
}
