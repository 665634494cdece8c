/** What other features use of onboarding: the admin's invitation of a new employer. */
export { inviteEmployer } from "./service";
