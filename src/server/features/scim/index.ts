/** What other features use of SCIM provisioning: whether an organisation provisions by SCIM. */
import type { Deps } from "@server/context";
import type { Feature } from "@server/features/feature";
import { findUserByEmail } from "@server/features/users";
import * as repo from "./repository";
import scimRoutes from "./routes";

/** Whether the organisation has a SCIM token (then single sign-on creates no accounts on first sign-in). */
export async function hasScimToken(deps: Pick<Deps, "db">, organisationId: number): Promise<boolean> {
  return (await repo.findToken(deps.db, organisationId)) !== undefined;
}

export const scimFeature: Feature = {
  name: "scim",
  purpose: "SCIM 2.0 provisioning: the organisation's identity provider creates and deactivates its employees.",
  tables: ["scim_tokens", "scim_users"],
  routes: scimRoutes,
  /**
   * Empties what SCIM kept of the account (externalId, names, the e-mail it released) and leaves a tombstone
   * so that SCIM answers 404 for it for ever. The e-mail SCIM had released may name the account in the audit
   * log: the erasure erases it there too, unless a newer account has that e-mail now (its events are its own).
   * A token keeps its creator by id only.
   */
  erase: async (tx, person, now, erasure) => {
    const released = await repo.eraseScimUser(tx, person.id, person.organisationId, now);
    if (released && !(await findUserByEmail(tx, released))) erasure.formerEmails.push(released);
  },
};
