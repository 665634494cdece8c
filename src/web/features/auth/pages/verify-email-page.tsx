import { MESSAGES } from "@shared/messages";
import { paths } from "@shared/paths";
import { Notice } from "@web/components/ui/notice";
import { Page } from "@web/components/ui/page";
import { ResendVerification } from "@web/components/ui/resend-verification";
import { useEffect, useRef, useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";
import { authApi } from "../api";

/** The landing page of the e-mailed verification link: verifies once, then goes to Log In. */
export function VerifyEmailPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const email = params.get("email") ?? "";
  const token = params.get("token") ?? "";
  const complete = Boolean(email && token);
  const started = useRef(false);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    // The ref survives React StrictMode's second effect run: the token is single-use, so call once.
    if (started.current) return;
    started.current = true;
    if (!complete) {
      // The spec logs this; a warning, not an error: the page itself explains it to the visitor.
      console.warn("Email verification link is missing its email or token.");
      return;
    }
    authApi.verifyEmail(email, token).then(
      (answer) => {
        const pending = answer?.pending === true ? "&pending=1" : "";
        navigate(`${paths.login}?verified=true&email=${encodeURIComponent(email)}${pending}`, { replace: true });
      },
      () => {
        setFailed(true);
        navigate(`${paths.login}?verification=failed`, { replace: true });
      },
    );
  }, [complete, email, token, navigate]);

  return (
    <Page title="Verify your email" width="narrow">
      <div className="card">
        {complete && !failed ? (
          <p role="status" className="notice notice--info">
            {MESSAGES.verifyingEmail}
          </p>
        ) : (
          <>
            <Notice tone="error">{MESSAGES.invalidVerificationLink}</Notice>
            <p>
              Open the link from your most recent verification email, or go to <Link to={paths.login}>Log In</Link>.
            </p>
            {email && <ResendVerification email={email} />}
          </>
        )}
      </div>
    </Page>
  );
}
