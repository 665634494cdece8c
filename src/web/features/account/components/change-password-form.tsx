import { ACCOUNT_TEXT, changePasswordBody } from "@shared/account";
import { MESSAGES } from "@shared/messages";
import { useFormError } from "@web/components/ui/form-error";
import { Notice } from "@web/components/ui/notice";
import { SubmitButton } from "@web/components/ui/submit-button";
import { TextField } from "@web/components/ui/text-field";
import { errorMessage } from "@web/lib/api";
import { type FormEvent, useState } from "react";
import { accountApi } from "../api";

/** Current password, the new one twice; every other session ends when it is changed. */
export function ChangePasswordForm({ onChanged }: { onChanged(): void | Promise<void> }) {
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [confirm, setConfirm] = useState("");
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const { setError, describedBy, notice } = useFormError();

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    setDone(null);
    if (next !== confirm) {
      setError(MESSAGES.passwordsDoNotMatch);
      return;
    }
    const parsed = changePasswordBody.safeParse({ currentPassword: current, newPassword: next });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message ?? MESSAGES.employerPasswordRules);
      return;
    }
    setError(null);
    setBusy(true);
    try {
      const answer = await accountApi.changePassword(current, next);
      setCurrent("");
      setNext("");
      setConfirm("");
      setDone(answer?.message ?? ACCOUNT_TEXT.passwordChanged);
      await onChanged();
    } catch (err) {
      setError(errorMessage(err, "Failed to change password."));
    } finally {
      setBusy(false);
    }
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
        <SubmitButton busy={busy} className="button button--primary">
          Change password
        </SubmitButton>
        {notice}
        {done && <Notice tone="success">{done}</Notice>}
      </form>
    </section>
  );
}
