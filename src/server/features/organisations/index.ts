/** The home of the `organisations` table: who an employer-facing call acts for, and the organisation reads. */

export { organisationsErrors } from "./errors";
export * from "./repository";
export * from "./service";
export * from "./status";
