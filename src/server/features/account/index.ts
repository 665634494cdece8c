/** What other features use of the account feature: erasure of a person's passkeys. */
export { deletePasskeysOf } from "./repository";
