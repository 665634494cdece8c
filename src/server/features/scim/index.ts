/** What other features use of SCIM provisioning: whether an organisation provisions by SCIM, and erasure. */
import type { Deps } from "@server/context";
import type { Executor } from "@server/db/client";
import * as repo from "./repository";

/** Whether the organisation has a SCIM token (then single sign-on creates no accounts on first sign-in). */
export async function hasScimToken(deps: Pick<Deps, "db">, organisationId: number): Promise<boolean> {
  return (await repo.findToken(deps.db, organisationId)) !== undefined;
}

/**
 * Erasure: empties what SCIM kept of the account (externalId, names, the e-mail it released) and leaves a
 * tombstone so that SCIM answers 404 for it for ever. Returns the e-mail SCIM had released, if any.
 */
export function eraseScimAttributesOf(tx: Executor, userId: number, organisationId: number | null, now: Date) {
  return repo.eraseScimUser(tx, userId, organisationId, now);
}
