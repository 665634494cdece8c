/** What other features use of identity codes: a user's codes for the data export, and erasure. */

/** What the integration API (/api/v1) uses: generation as the employee, an organisation's codes, live status. */
export { codesErrors } from "./errors";
export { openStatusStream, sseHeaders } from "./live";
export { codesOfUser, deleteCodesOf, expireLiveCodesOf } from "./repository";
export { generateWords, organisationCodeStatus } from "./service";
