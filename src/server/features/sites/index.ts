/** What other features use of proven sites: the sites a registration starts with, and a proved e-mail domain. */
export { addRegistrationSites, emailDomainProved } from "./service";
