import { generateAccessCodeBody, MAX_USERS_LIMIT } from "@shared/employer";
import { MESSAGES } from "@shared/messages";
import { useFormError } from "@web/components/ui/form-error";
import { SubmitButton } from "@web/components/ui/submit-button";
import { TextField } from "@web/components/ui/text-field";
import { ApiError } from "@web/lib/api";
import { type FormEvent, useState } from "react";
import { employerApi } from "../api";

/** How many employees may sign up with a new access code; the code panel is refetched afterwards. */
export function GenerateCodeForm({ onDone }: { onDone(): void | Promise<void> }) {
  const [maxUsers, setMaxUsers] = useState("1");
  const [busy, setBusy] = useState(false);
  const { setError, describedBy, notice } = useFormError();

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    const text = maxUsers.trim();
    const parsed = generateAccessCodeBody.safeParse({ maxUsers: /^\d+$/.test(text) ? Number(text) : Number.NaN });
    if (!parsed.success) {
      alert(MESSAGES.invalidUserLimit);
      return;
    }
    setError(null);
    setBusy(true);
    try {
      await employerApi.generateAccessCode(parsed.data.maxUsers);
    } catch (err) {
      setError(
        err instanceof ApiError && err.status === 409
          ? (err.message ?? MESSAGES.activeCodeExists)
          : MESSAGES.adminCodeFailed,
      );
    } finally {
      setBusy(false);
    }
    await onDone();
  }

  return (
    <form className="generate-code" onSubmit={submit} noValidate>
      <div className="generate-code__row">
        <TextField
          label="Required users"
          type="number"
          name="maxUsers"
          min={1}
          max={MAX_USERS_LIMIT}
          step={1}
          inputMode="numeric"
          required
          hint="How many employees may sign up with the new code."
          value={maxUsers}
          onChange={(e) => setMaxUsers(e.target.value)}
          describedBy={describedBy}
          className="generate-code__field"
        />
        <SubmitButton busy={busy} className="button button--primary">
          Generate Access Code
        </SubmitButton>
      </div>
      {notice}
    </form>
  );
}
