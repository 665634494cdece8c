/** What other features use of single sign-on: whether enforced SSO bars an account or an organisation. */

export { ssoErrors } from "./errors";
export { ssoEnforcedFor, ssoRequiredFor } from "./service";
