/** The home of the `organisations` table: who an employer-facing call acts for, and the organisation reads. */
import type { Feature } from "@server/features/feature";

export { organisationsErrors } from "./errors";
export * from "./repository";
export * from "./service";
export * from "./status";

export const organisationsFeature: Feature = {
  name: "organisations",
  purpose: "Organisations: which one an employer-facing call acts for.",
  tables: ["organisations"],
};
