import { type Actor, signedIn } from "@server/context";
import { organisationsErrors } from "./errors";

/**
 * The organisation an employer-facing call acts for: a superuser's (or employee's) own; for an admin,
 * who has none, the one named by `requested` (an admin's `?organisationId=`). With `orNone`, a caller
 * acting for no organisation gets null (reads that show nothing then); otherwise the one "no
 * organisation" error (404).
 */
export function organisationFor(actor: Actor, opts: { requested?: number; orNone: true }): number | null;
export function organisationFor(actor: Actor, opts?: { requested?: number; orNone?: false }): number;
export function organisationFor(actor: Actor, opts: { requested?: number; orNone?: boolean } = {}): number | null {
  const user = signedIn(actor);
  const id = user.role === "admin" ? (opts.requested ?? null) : user.organisationId;
  if (id === null && !opts.orNone) throw organisationsErrors.noOrganisation();
  return id;
}
