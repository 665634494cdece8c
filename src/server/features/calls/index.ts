import type { Feature } from "../feature";
import callsRoutes from "./routes";
import statusRoutes from "./status-routes";

export { customerHash, openCustomerRef, sealCustomerRef } from "./customer";

/** Calls (contract, "Calls"): status in the customer's own app, and checks in both directions. */
export const callsFeature: Feature = {
  name: "calls",
  purpose: "Calls with customers: live call status for the customer's own app, and checks in both directions.",
  tables: ["calls", "customer_checks", "call_status_tokens"],
  routes: async (app) => {
    await callsRoutes(app);
    await statusRoutes(app);
  },
};
