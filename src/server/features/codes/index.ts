/** What other features use of identity codes: a user's codes for the data export, and erasure. */
export { codesOfUser, deleteCodesOf, expireLiveCodesOf } from "./repository";
