import { generateAccessCodeBody, MAX_USERS_LIMIT } from "@shared/employer";
import { ERROR_CODES } from "@shared/error-codes";
import { MESSAGES } from "@shared/messages";
import { FormError } from "@web/components/ui/form-error";
import { SubmitButton } from "@web/components/ui/submit-button";
import { TextField } from "@web/components/ui/text-field";
import { ApiError } from "@web/lib/api";
import { useSubmit } from "@web/lib/use-submit";
import { type FormEvent, useState } from "react";
import { organisationApi } from "./api";

/** How many employees may sign up with a new access code; the code panel is refetched afterwards. */
export function GenerateCodeForm({ onDone }: { onDone(): void | Promise<void> }) {
  const [maxUsers, setMaxUsers] = useState("1");
  const form = useSubmit();

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (form.busy) return;
    const text = maxUsers.trim();
    const parsed = generateAccessCodeBody.safeParse({ maxUsers: /^\d+$/.test(text) ? Number(text) : Number.NaN });
    if (!parsed.success) {
      alert(MESSAGES.invalidUserLimit);
      return;
    }
    await form.run(() => organisationApi.generateAccessCode(parsed.data.maxUsers), {
      failed: (err) =>
        err instanceof ApiError && err.code === ERROR_CODES.activeAccessCodeExists
          ? (err.serverMessage ?? MESSAGES.activeCodeExists)
          : MESSAGES.accessCodeFailed,
    });
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
          describedBy={form.describedBy}
          className="generate-code__field"
        />
        <SubmitButton busy={form.busy} className="button button--primary">
          Generate Access Code
        </SubmitButton>
      </div>
      <FormError form={form} />
    </form>
  );
}
