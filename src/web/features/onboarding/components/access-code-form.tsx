import { MESSAGES } from "@shared/messages";
import { accessCodeSchema } from "@shared/onboarding";
import { Notice } from "@web/components/ui/notice";
import { SubmitButton } from "@web/components/ui/submit-button";
import { TextField } from "@web/components/ui/text-field";
import { errorMessage } from "@web/lib/api";
import { type FormEvent, useId, useState } from "react";

/** spec §4: access-code entry is idle, validating, valid (moving on) or invalid (message shown). */
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
  const errorId = useId();
  const [code, setCode] = useState(initialCode);
  const [state, setState] = useState<AccessCodeState>("idle");
  const [error, setError] = useState<string | null>(null);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (state === "validating") return;
    const parsed = accessCodeSchema.safeParse(code);
    if (!parsed.success) {
      setState("invalid");
      setError(parsed.error.issues[0]?.message ?? MESSAGES.invalidCode);
      return;
    }
    setState("validating");
    setError(null);
    try {
      await validate(parsed.data);
      setState("valid");
    } catch (err) {
      setState("invalid");
      setError(errorMessage(err, MESSAGES.invalidCode));
    }
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
          if (state === "invalid") {
            setState("idle");
            setError(null);
          }
        }}
        describedBy={error ? errorId : undefined}
        className="field--access-code"
      />
      {error && (
        <Notice tone="error" id={errorId}>
          {error}
        </Notice>
      )}
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
