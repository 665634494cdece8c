/** What other features use of sign-in: the one verification-token mechanism and the verification mail. */
import type { Feature } from "@server/features/feature";
import { deleteExpiredTokens, deleteTokensOfUser } from "./repository";
import authRoutes from "./routes";

export { sendVerificationEmail } from "./service";
export { VerificationTokens } from "./tokens";

export const authFeature: Feature = {
  name: "auth",
  purpose: "Sign-in in two steps, password reset and e-mail verification (one token mechanism).",
  tables: ["verification_tokens"],
  routes: authRoutes,
  sweep: (deps, now) => deleteExpiredTokens(deps.db, now),
  // Links and codes mailed to the old address stop working.
  onEmailChanged: (tx, userId) => deleteTokensOfUser(tx, userId),
  erase: (tx, person) => deleteTokensOfUser(tx, person.id),
};
