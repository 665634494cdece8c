/** The platform admins' dashboard (its routes only: nothing here is for other features). */
import type { Feature } from "@server/features/feature";
import adminRoutes from "./routes";

export const adminFeature: Feature = {
  name: "admin",
  purpose: "The platform admins' dashboard: employer accounts, activation, deactivation, erasure.",
  routes: adminRoutes,
};
