import { HttpError } from "@server/lib/errors";
import { RECENT_SIGN_IN_TEXT } from "@shared/account-texts";
import { ERROR_CODES } from "@shared/error-codes";
import { MESSAGES } from "@shared/messages";

/** Why an account with the right credentials still may not sign in: the same for every way of signing in. */
export const usersErrors = {
  accountDeactivated: () => new HttpError(403, ERROR_CODES.accountDeactivated, MESSAGES.accountDeactivated),
  emailNotVerified: () => new HttpError(403, ERROR_CODES.emailNotVerified, MESSAGES.emailNotVerified),
  accountPending: () => new HttpError(403, ERROR_CODES.accountPending, MESSAGES.accountPending),
  /** a sensitive change from a session that signed in more than 15 minutes ago (assertRecentSignIn) */
  recentSignInRequired: () => new HttpError(403, ERROR_CODES.recentSignInRequired, RECENT_SIGN_IN_TEXT),
};
