import { MESSAGES } from "@shared/messages";
import { accessCodeSchema } from "@shared/onboarding";
import { FormError } from "@web/components/ui/form-error";
import { Notice } from "@web/components/ui/notice";
import { SubmitButton } from "@web/components/ui/submit-button";
import { TextField } from "@web/components/ui/text-field";
import { useSubmit } from "@web/lib/use-submit";
import { type FormEvent, useState } from "react";

/** Access-code entry is idle, validating, valid (moving on) or invalid (message shown). */
export type AccessCodeState = "idle" | "validating" | "valid" | "invalid";

type AccessCodeFormProps = {
  label: string;
  hint: string;
  initialCode?: string;
  /** checks the code with the server; resolves when it is valid (the caller then moves on), rejects otherwise */
  validate(code: string): Promise<void>;
};

/** One access-code field and a Continue button; the server's reason for a refusal appears under the field. */
export function AccessCodeForm({ label, hint, initialCode = "", validate }: AccessCodeFormProps) {
  const [code, setCode] = useState(initialCode);
  const form = useSubmit();
  const [valid, setValid] = useState(false);
  const state: AccessCodeState = form.busy ? "validating" : valid ? "valid" : form.error ? "invalid" : "idle";

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (form.busy) return;
    setValid(false);
    const checked = form.check(accessCodeSchema, code, MESSAGES.invalidCode);
    if (checked === undefined) return;
    setValid(await form.run(() => validate(checked), { failed: MESSAGES.invalidCode }));
  }

  return (
    <form className="card form" onSubmit={submit} noValidate data-state={state}>
      <TextField
        label={label}
        hint={hint}
        name="code"
        autoComplete="off"
        autoCapitalize="characters"
        spellCheck={false}
        required
        value={code}
        onChange={(event) => {
          setCode(event.target.value);
          if (state === "invalid") form.setError(null);
        }}
        describedBy={form.describedBy}
        className="field--access-code"
      />
      <FormError form={form} />
      <SubmitButton busy={state === "validating"}>Continue</SubmitButton>
      {state === "validating" && (
        <p className="visually-hidden" role="status">
          Checking the code…
        </p>
      )}
      {state === "valid" && <Notice tone="success">Access code accepted.</Notice>}
    </form>
  );
}
