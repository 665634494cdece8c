import { RESET_KEEPS_PASSKEYS } from "@shared/account-texts";
import { PASSWORD, UI_TIMING } from "@shared/constants";
import { ERROR_CODES } from "@shared/error-codes";
import { MESSAGES } from "@shared/messages";
import { paths } from "@shared/paths";
import { meetsPasswordRules, passwordRulesMessage } from "@shared/validation";
import { FormError } from "@web/components/ui/form-error";
import { Notice } from "@web/components/ui/notice";
import { Page } from "@web/components/ui/page";
import { SubmitButton } from "@web/components/ui/submit-button";
import { TextField } from "@web/components/ui/text-field";
import { useSubmit } from "@web/lib/use-submit";
import { type FormEvent, useEffect, useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";
import { authApi } from "../api";

const RULES = passwordRulesMessage("employer");

/** Sets a new password from the e-mailed link (?token=…), then returns to Log In. */
export function ResetPasswordPage() {
  const [params] = useSearchParams();
  const token = params.get("token") ?? "";
  const navigate = useNavigate();
  const [password, setPassword] = useState("");
  const form = useSubmit();
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);

  useEffect(() => {
    if (!done) return;
    const timer = setTimeout(() => navigate(paths.login), UI_TIMING.resetRedirectMs);
    return () => clearTimeout(timer);
  }, [done, navigate]);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (form.busy || done) return;
    form.setError(null);
    if (!meetsPasswordRules(password)) return setFieldError(RULES);
    if ([...password].length > PASSWORD.maxLength) return setFieldError(MESSAGES.passwordTooLong);
    setFieldError(null);
    await form.run(
      async () => {
        const answer = await authApi.resetPassword(token, password);
        setDone(answer?.message ?? MESSAGES.passwordReset);
      },
      { failed: MESSAGES.resetFailed },
    );
  }

  if (!token) {
    return (
      <Page title="Reset your password" width="narrow">
        <div className="card">
          <Notice tone="error">{MESSAGES.invalidResetLink}</Notice>
          <p>
            Open the link from your most recent reset email, or{" "}
            <Link to={paths.forgotPassword}>ask for a new link</Link>.
          </p>
        </div>
      </Page>
    );
  }

  return (
    <Page title="Reset your password" width="narrow">
      <form className="card form" onSubmit={submit}>
        <TextField
          label="New password"
          type="password"
          name="newPassword"
          autoComplete="new-password"
          required
          hint={RULES}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={fieldError ?? undefined}
          describedBy={form.describedBy}
          disabled={Boolean(done)}
        />
        <p className="muted">{RESET_KEEPS_PASSKEYS}</p>
        <SubmitButton busy={form.busy}>Reset Password</SubmitButton>
        <FormError form={form}>
          {form.errorCode === ERROR_CODES.invalidResetLink && (
            <>
              {" "}
              <Link to={paths.forgotPassword}>Ask for a new link</Link>
            </>
          )}
        </FormError>
        {done && (
          <Notice tone="success">
            {done} Taking you to <Link to={paths.login}>Log In</Link>…
          </Notice>
        )}
      </form>
    </Page>
  );
}
