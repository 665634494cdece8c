/** What other features use of the account feature: erasure of a person's passkeys, the recent sign-in rule. */
export { signedInRecently } from "./recent-sign-in";
export { deletePasskeysOf } from "./repository";
