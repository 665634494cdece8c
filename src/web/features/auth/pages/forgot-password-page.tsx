import { TOKEN_LIFETIME } from "@shared/constants";
import { MESSAGES } from "@shared/messages";
import { paths } from "@shared/paths";
import { FormError } from "@web/components/ui/form-error";
import { Notice } from "@web/components/ui/notice";
import { Page } from "@web/components/ui/page";
import { SubmitButton } from "@web/components/ui/submit-button";
import { TextField } from "@web/components/ui/text-field";
import { useSubmit } from "@web/lib/use-submit";
import { type FormEvent, useState } from "react";
import { Link } from "react-router";
import { authApi } from "../api";

/** Asks for a password reset link by e-mail. */
export function ForgotPasswordPage() {
  const [email, setEmail] = useState("");
  const form = useSubmit();
  const [sent, setSent] = useState<string | null>(null);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    await form.run(
      async () => {
        setSent(null);
        const answer = await authApi.forgotPassword(email.trim());
        setSent(answer?.message ?? MESSAGES.resetLinkSent);
      },
      { failed: MESSAGES.sendResetFailed },
    );
  }

  return (
    <Page
      title="Forgot your password?"
      width="narrow"
      intro={
        <p>
          Enter the email you log in with. We will send you a link to set a new password; it works once, for{" "}
          {TOKEN_LIFETIME.passwordResetMs / 3_600_000} hour.
        </p>
      }
    >
      <form className="card form" onSubmit={submit}>
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
        <SubmitButton busy={form.busy}>Send Reset Link</SubmitButton>
        <FormError form={form} />
        {sent && <Notice tone="success">{sent}</Notice>}
      </form>
      <p className="form__after">
        Remembered it? <Link to={paths.login}>Back to Log In</Link>
      </p>
    </Page>
  );
}
