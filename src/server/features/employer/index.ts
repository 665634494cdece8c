/** The employer dashboard's own part: employees and the employee access code (its routes only). */
import type { Feature } from "@server/features/feature";
import employerRoutes from "./routes";

export const employerFeature: Feature = {
  name: "employer",
  purpose: "The employer dashboard: employees and the employee access code.",
  tables: ["employee_access_codes"],
  erasureKeeps: {
    employee_access_codes: "created_by: which account made the organisation's code, by id only (no name or e-mail)",
  },
  routes: employerRoutes,
};
