/** What other features use of sign-in: the one verification-token mechanism and the verification mail. */

export { deleteTokensOfUser } from "./repository";
export { sendVerificationEmail } from "./service";
export { VerificationTokens } from "./tokens";
