/** The employer dashboard's own part: employees and the employee access code (its routes, and the code's use by sign-up). */
import type { Feature } from "@server/features/feature";
import employerRoutes from "./routes";

/** Joining with the access code (onboarding): its look-up and the claim of a seat, in the sign-up's transaction. */
export { claimSeat, findLiveAccessCode } from "./repository";

export const employerFeature: Feature = {
  name: "employer",
  purpose: "The employer dashboard: employees and the employee access code.",
  tables: ["employee_access_codes"],
  erasureKeeps: {
    employee_access_codes: "created_by: which account made the organisation's code, by id only (no name or e-mail)",
  },
  routes: employerRoutes,
};
