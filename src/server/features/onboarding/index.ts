/** What other features use of onboarding: the admin's invitation of a new employer. */
import type { Feature } from "@server/features/feature";
import { eraseInvitationsOf } from "./repository";
import onboardingRoutes from "./routes";

export { inviteEmployer } from "./service";

export const onboardingFeature: Feature = {
  name: "onboarding",
  purpose: "Employer invitations and sign-up, employees joining with an access code.",
  tables: ["employer_invitations"],
  routes: onboardingRoutes,
  // Invitations to the person's address keep their rows, under an address that names nobody.
  erase: (tx, person) => eraseInvitationsOf(tx, person.email, `erased-${person.id}@erased.invalid`),
};
