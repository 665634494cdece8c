/** What other features use of single sign-on: whether enforced SSO bars an account or an organisation. */
import type { Feature } from "@server/features/feature";
import { deleteStatesExpiredBefore } from "./repository";
import ssoRoutes from "./routes";

export { ssoErrors } from "./errors";
export { ssoEnforcedFor, ssoRequiredFor } from "./service";

const DAY_MS = 24 * 60 * 60_000;

export const ssoFeature: Feature = {
  name: "sso",
  purpose: "Single sign-on through the organisation's identity provider (OpenID Connect).",
  // An account's link to its (iss, sub) is the users home's (sso_links), deleted on deactivation and erasure.
  tables: ["sso_connections", "sso_states"],
  routes: ssoRoutes,
  // Attempts are kept a day after they expire (a replay still reads "used"), then deleted.
  sweep: (deps, now) => deleteStatesExpiredBefore(deps.db, new Date(now.getTime() - DAY_MS)),
};
