/** What other features use of the account feature: erasure of a person's passkeys. */

/** The rule for sensitive changes: a sign-in within the last 15 minutes (passkeys, webhook URLs...). */
export { deletePasskeysOf } from "./repository";
