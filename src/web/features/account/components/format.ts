import type { Role } from "@shared/constants";

const DATE_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

/** A server time (ISO 8601) in the reader's locale and time zone. */
export function formatDateTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : DATE_TIME.format(date);
}

export const ROLE_LABELS: Record<Role, string> = {
  admin: "Platform admin",
  superuser: "Employer admin",
  client: "Employee",
};
