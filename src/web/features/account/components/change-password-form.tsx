import { ACCOUNT_TEXT, changePasswordBody } from "@shared/account";
import { MESSAGES } from "@shared/messages";
import { FormError } from "@web/components/ui/form-error";
import { Notice } from "@web/components/ui/notice";
import { SubmitButton } from "@web/components/ui/submit-button";
import { TextField } from "@web/components/ui/text-field";
import { useSubmit } from "@web/lib/use-submit";
import { type FormEvent, useState } from "react";
import { accountApi } from "../api";

/** Current password, the new one twice; every other session ends when it is changed. */
export function ChangePasswordForm({ onChanged }: { onChanged(): void | Promise<void> }) {
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [confirm, setConfirm] = useState("");
  const [done, setDone] = useState<string | null>(null);
  const form = useSubmit();
  const { describedBy } = form;

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setDone(null);
    if (next !== confirm) {
      form.setError(MESSAGES.passwordsDoNotMatch);
      return;
    }
    const body = form.check(
      changePasswordBody,
      { currentPassword: current, newPassword: next },
      MESSAGES.employerPasswordRules,
    );
    if (!body) return;
    await form.run(
      async () => {
        const answer = await accountApi.changePassword(body.currentPassword, body.newPassword);
        setCurrent("");
        setNext("");
        setConfirm("");
        setDone(answer?.message ?? ACCOUNT_TEXT.passwordChanged);
        await onChanged();
      },
      { failed: ACCOUNT_TEXT.changePasswordFailed },
    );
  }

  return (
    <section className="card account-section" aria-labelledby="password-title">
      <h2 id="password-title">Change password</h2>
      <form className="form" onSubmit={submit} noValidate>
        <TextField
          label="Current password"
          type="password"
          name="current-password"
          autoComplete="current-password"
          required
          value={current}
          onChange={(e) => setCurrent(e.target.value)}
          describedBy={describedBy}
        />
        <TextField
          label="New password"
          type="password"
          name="new-password"
          autoComplete="new-password"
          required
          hint="At least 8 characters, with an upper-case letter and a special character."
          value={next}
          onChange={(e) => setNext(e.target.value)}
          describedBy={describedBy}
        />
        <TextField
          label="Confirm new password"
          type="password"
          name="confirm-password"
          autoComplete="new-password"
          required
          value={confirm}
          onChange={(e) => setConfirm(e.target.value)}
          describedBy={describedBy}
        />
        <SubmitButton busy={form.busy} className="button button--primary">
          Change password
        </SubmitButton>
        <FormError form={form} />
        {done && <Notice tone="success">{done}</Notice>}
      </form>
    </section>
  );
}
