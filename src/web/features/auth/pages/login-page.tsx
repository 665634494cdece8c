import { type Role, SIGN_IN } from "@shared/constants";
import { ERROR_CODES } from "@shared/error-codes";
import { MESSAGES } from "@shared/messages";
import { landingFor, paths } from "@shared/paths";
import { SSO_TEXT, ssoFailureMessage } from "@shared/sso-texts";
import { FormError } from "@web/components/ui/form-error";
import { Notice } from "@web/components/ui/notice";
import { Page } from "@web/components/ui/page";
import { ResendVerification } from "@web/components/ui/resend-verification";
import { SubmitButton } from "@web/components/ui/submit-button";
import { TextField } from "@web/components/ui/text-field";
import { errorMessage } from "@web/lib/api";
import { useAuth } from "@web/lib/auth";
import { useSubmit } from "@web/lib/use-submit";
import { type FormEvent, useEffect, useRef, useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";
import { authApi } from "../api";
import { PasskeySignIn } from "../components/passkey-sign-in";
import { SsoSignIn, useSsoOffer } from "../components/sso-sign-in";

type Banner = { tone: "success" | "error" | "info"; text: string };

/** What the query string says about an e-mail verification that led here. */
function verificationNotice(params: URLSearchParams): Banner | null {
  // Back from a single sign-on that failed: "Single sign-on failed: <why>".
  if (params.get("sso") === "failed") return { tone: "error", text: ssoFailureMessage(params.get("reason")) };
  if (params.get("verification") === "failed") return { tone: "error", text: MESSAGES.emailVerificationFailed };
  if (params.get("verified") === "true") {
    return params.get("pending") === "1"
      ? { tone: "info", text: MESSAGES.emailVerifiedPending }
      : { tone: "success", text: MESSAGES.emailVerified };
  }
  return null;
}

/** Two-step sign-in: e-mail and password, then the 6-digit code sent by e-mail. */
/** A failed code step: '2FA failed', then the server's reason when it gave one. */
function twoFactorFailure(error: unknown): string {
  const reason = errorMessage(error, "");
  return reason ? `${MESSAGES.twoFactorFailed}: ${reason}` : MESSAGES.twoFactorFailed;
}

export function LoginPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const auth = useAuth();
  const [step, setStep] = useState<1 | 2>(params.get("step") === "2" ? 2 : 1);
  const [email, setEmail] = useState(params.get("email") ?? "");
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  const form = useSubmit();
  const [notice, setNotice] = useState<Banner | null>(() => verificationNotice(params));
  const codeInput = useRef<HTMLInputElement>(null);
  const emailInput = useRef<HTMLInputElement>(null);
  const movedStep = useRef(false);
  /** Opened straight on step 2 (?step=2) without an e-mail: ask for it beside the code. */
  const [askEmail] = useState(() => params.get("step") === "2" && !params.get("email"));
  /** the typed e-mail's organisation signs in with single sign-on (and perhaps requires it) */
  const sso = useSsoOffer(email);
  const ssoFirst = sso?.enforced === true;

  // Moving between the steps puts the keyboard focus on the new step's first field.
  useEffect(() => {
    if (!movedStep.current) return;
    (step === 2 ? codeInput : emailInput).current?.focus();
  }, [step]);

  function goToStep(next: 1 | 2) {
    movedStep.current = true;
    form.setError(null);
    setStep(next);
  }

  async function submitPassword(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    await form.run(
      async () => {
        const answer = await authApi.login(email.trim(), password);
        setNotice({ tone: "info", text: answer?.message ?? MESSAGES.signInCodeSent });
        setCode("");
        goToStep(2);
      },
      { failed: MESSAGES.loginFailed },
    );
  }

  async function submitCode(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    await form.run(
      async () => {
        const { role } = await authApi.verify2fa(email.trim(), code.trim());
        auth.signedIn(role);
        const confirmed = await auth.refresh();
        setPassword("");
        navigate(landingFor[confirmed ?? role], { replace: true });
      },
      { failed: twoFactorFailure, stayBusy: true },
    );
  }

  async function signedInWithPasskey(role: Role) {
    auth.signedIn(role);
    const confirmed = await auth.refresh();
    navigate(landingFor[confirmed ?? role], { replace: true });
  }

  if (step === 2) {
    return (
      <Page title="Enter 2FA Code from Email" documentTitle="Log In" width="narrow">
        {notice && <Notice tone={notice.tone}>{notice.text}</Notice>}
        <form className="card form" onSubmit={submitCode}>
          <p className="form__lead">
            {email ? (
              <>
                Sent to <strong>{email}</strong>.{" "}
              </>
            ) : null}
            The code is valid for {SIGN_IN.codeLifetimeMs / 60_000} minutes.
          </p>
          {askEmail && (
            <TextField
              label="Email"
              type="email"
              name="email"
              autoComplete="email"
              required
              value={email}
              onChange={(e) => setEmail(e.target.value)}
              describedBy={form.describedBy}
            />
          )}
          <TextField
            ref={codeInput}
            label="Code"
            name="code"
            inputMode="numeric"
            autoComplete="one-time-code"
            pattern="\d{6}"
            maxLength={SIGN_IN.codeDigits}
            required
            hint={`The ${SIGN_IN.codeDigits} digits from the email`}
            value={code}
            onChange={(e) => setCode(e.target.value.replace(/\D/g, ""))}
            describedBy={form.describedBy}
            className="field--code"
          />
          <SubmitButton busy={form.busy}>Log In</SubmitButton>
          <FormError form={form} />
        </form>
        <p className="form__after">
          No code, or it expired?{" "}
          <button type="button" className="link-button" onClick={() => goToStep(1)}>
            Back to email and password
          </button>{" "}
          to get a new one.
        </p>
      </Page>
    );
  }

  return (
    <Page title="Log In" width="narrow">
      {notice && <Notice tone={notice.tone}>{notice.text}</Notice>}
      <form className="card form" onSubmit={submitPassword}>
        <TextField
          ref={emailInput}
          label="Email"
          type="email"
          name="email"
          autoComplete="username webauthn"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          describedBy={form.describedBy}
        />
        {sso && <SsoSignIn email={email} offer={sso} onError={form.setError} />}
        {ssoFirst && <p className="form__aside muted">{SSO_TEXT.orUsePassword}</p>}
        <TextField
          label="Password"
          type="password"
          name="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          describedBy={form.describedBy}
        />
        <SubmitButton
          busy={form.busy}
          className={`button button--block ${ssoFirst ? "button--secondary" : "button--primary"}`}
        >
          Log In
        </SubmitButton>
        <FormError form={form} />
        {form.errorCode === ERROR_CODES.emailNotVerified && email.trim() && <ResendVerification email={email} />}
        <p className="form__aside">
          <Link to={paths.forgotPassword}>Forgot your password?</Link>
        </p>
        <p className="form__aside muted">or</p>
        <PasskeySignIn onSignedIn={signedInWithPasskey} onError={form.setError} />
      </form>
      <p className="form__after">
        New to CallProof? <Link to={paths.selectSignup}>Create an account</Link>
      </p>
    </Page>
  );
}
