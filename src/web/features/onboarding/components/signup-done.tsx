import { TOKEN_LIFETIME } from "@shared/constants";
import { MESSAGES } from "@shared/messages";
import { paths } from "@shared/paths";
import { ResendVerification } from "@web/components/ui/resend-verification";
import { useEffect, useRef } from "react";
import { Link } from "react-router";

/** What replaces a sign-up form once the account is created: go and open the e-mailed link. */
export function SignupDone({ email }: { email: string }) {
  const box = useRef<HTMLDivElement>(null);
  // The form the user was in is gone: put focus on the news instead.
  useEffect(() => {
    box.current?.focus();
  }, []);
  return (
    <div ref={box} className="card signup-done" tabIndex={-1} role="status">
      <p className="signup-done__title">{MESSAGES.followEmailLink}</p>
      <p>
        We sent a verification link to <strong>{email}</strong>. It is valid for{" "}
        {TOKEN_LIFETIME.emailVerificationMs / 3_600_000} hours. After you verify, you can{" "}
        <Link to={paths.login}>log in</Link>.
      </p>
      <p className="muted">No e-mail after a few minutes? Check your spam folder, or ask for a new link.</p>
      <ResendVerification email={email} />
    </div>
  );
}
