/** What other features use of onboarding: the admin's invitation of a new employer. */

export { eraseInvitationsOf } from "./repository";
export { inviteEmployer } from "./service";
