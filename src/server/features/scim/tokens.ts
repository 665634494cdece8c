import { type Actor, auditActor, type Deps, signedInSession } from "@server/context";
import { organisationFor } from "@server/features/organisations";
import { assertRecentSignIn, notifyOrganisationAdmins } from "@server/features/users";
import { refuse } from "@server/lib/audit";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { paths } from "@shared/paths";
import { SCIM_PATH, SCIM_TEXT, type ScimStatus } from "@shared/scim";
import { scimErrors } from "./errors";
import { scimTokenCreatedMail } from "./mails";
import * as repo from "./repository";
import { newToken } from "./service";

/** The employer dashboard's side of SCIM: the base URL and the organisation's one token. */

export async function scimStatus(deps: Deps, actor: Actor): Promise<ScimStatus> {
  const token = await repo.findToken(deps.db, organisationFor(actor));
  return {
    baseUrl: `${deps.config.publicUrl}${SCIM_PATH}`,
    tokenCreatedAt: token?.createdAt.toISOString() ?? null,
    lastUsedAt: token?.lastUsedAt?.toISOString() ?? null,
  };
}

/**
 * A new token, shown this once; the previous one stops working in the same statement. It can create and
 * deactivate the organisation's employees, so it needs a sign-in within 15 minutes, and every superuser
 * of the organisation is told by e-mail.
 */
export async function createScimToken(deps: Deps, actor: Actor, input: { sessionHash: string | null }) {
  const { user, sessionHash } = signedInSession(actor, input.sessionHash);
  const organisationId = organisationFor(actor);
  const now = deps.clock.now();
  const audit = { ...auditActor(actor), action: AUDIT_ACTIONS.createScimToken, organisationId };
  await assertRecentSignIn(deps, actor, sessionHash, {
    action: AUDIT_ACTIONS.createScimToken,
    organisationId,
  });
  const { token, tokenId, tokenHash } = newToken(deps.config.appSecret);
  await repo.saveToken(deps.db, { organisationId, tokenId, tokenHash, createdBy: user.id, createdAt: now });
  await deps.audit.record({ ...audit, outcome: "success" });
  const dashboardUrl = `${deps.config.publicUrl}${paths.employerIntegrations}`;
  deps.background.run("SCIM token mails", () =>
    notifyOrganisationAdmins(deps, organisationId, (to) =>
      scimTokenCreatedMail(to, user.fullName, now, actor.ip, dashboardUrl),
    ),
  );
  return { token };
}

/** Revokes the organisation's token: the next SCIM request with it is 401. */
export async function revokeScimToken(deps: Deps, actor: Actor) {
  const organisationId = organisationFor(actor);
  const audit = { ...auditActor(actor), action: AUDIT_ACTIONS.revokeScimToken, organisationId };
  if (!(await repo.deleteToken(deps.db, organisationId))) {
    return refuse(deps, { ...audit, outcome: "failure", detail: { reason: "no token" } }, scimErrors.noToken());
  }
  await deps.audit.record({ ...audit, outcome: "success" });
  return { message: SCIM_TEXT.revoked };
}
