/** The integration API (its routes only: nothing here is for other features). */
import type { Feature } from "@server/features/feature";
import v1Routes from "./routes";

export const v1Feature: Feature = {
  name: "v1",
  purpose: "The integration API (/api/v1, Bearer keys): codes, their live status, the audit and reports cursors.",
  routes: v1Routes,
};
