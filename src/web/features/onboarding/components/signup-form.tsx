import { MESSAGES } from "@shared/messages";
import { Notice } from "@web/components/ui/notice";
import { Page } from "@web/components/ui/page";
import { SubmitButton } from "@web/components/ui/submit-button";
import { TextField, type TextFieldProps } from "@web/components/ui/text-field";
import { useSubmit } from "@web/lib/use-submit";
import { type FormEvent, type ReactNode, useId, useState } from "react";
import { SignupDone } from "./signup-done";
import { TermsConsent } from "./terms-consent";

/** The fields every sign-up form has, whatever else it asks. */
type CommonField = "password" | "confirmPassword" | "terms" | "form";

/** What stops a sign-up form from being sent: one message, under one field. */
export type SignupProblem<F extends string> = { field: F | CommonField; message: string };

function isProblem<F extends string, V>(result: SignupProblem<F> | V): result is SignupProblem<F> {
  return typeof result === "object" && result !== null && "field" in result;
}

/** The password rules' message (or null), under the confirmation when the two passwords differ, else the password. */
export function passwordFieldProblem(message: string | null): SignupProblem<never> | null {
  if (!message) return null;
  return { field: message === MESSAGES.passwordsDoNotMatch ? "confirmPassword" : "password", message };
}

/** The state of a sign-up form: its passwords, the terms box, the one problem shown, and the address once done. */
export function useSignupForm<F extends string>() {
  const errorId = useId();
  const [password, setPassword] = useState("");
  const [confirmPassword, setConfirmPassword] = useState("");
  const [agreed, setAgreed] = useState(false);
  const request = useSubmit();
  const [checkProblem, setCheckProblem] = useState<SignupProblem<F> | null>(null);
  const [doneEmail, setDoneEmail] = useState<string | null>(null);
  /** a failed check, else the server's refusal (under the whole form) */
  const problem: SignupProblem<F> | null =
    checkProblem ?? (request.error ? { field: "form", message: request.error } : null);

  /**
   * Runs the page's own checks (in the page's order); when they pass, registers, then shows
   * the "follow the link" notice for the address `register` resolves to.
   */
  async function submit<V>(
    event: FormEvent<HTMLFormElement>,
    check: () => SignupProblem<F> | V,
    register: (checked: V) => Promise<string>,
  ) {
    event.preventDefault();
    if (request.busy) return;
    const result = check();
    if (isProblem(result)) {
      request.setError(null);
      setCheckProblem(result);
      return;
    }
    setCheckProblem(null);
    await request.run(async () => setDoneEmail(await register(result)), { failed: MESSAGES.signupFailed });
  }

  /** The error under one field, announced, and tied to the field. */
  const errorFor = (field: F | CommonField) =>
    problem?.field === field ? (
      <Notice tone="error" id={`${errorId}-${field}`}>
        {problem.message}
      </Notice>
    ) : null;
  const describedBy = (field: F | CommonField) => (problem?.field === field ? `${errorId}-${field}` : undefined);

  return {
    errorId,
    password,
    setPassword,
    confirmPassword,
    setConfirmPassword,
    agreed,
    setAgreed,
    busy: request.busy,
    problem,
    doneEmail,
    submit,
    errorFor,
    describedBy,
  };
}

/** A text field of a sign-up form named after its field, with that field's error under it and tied to it. */
export function SignupField<F extends string>({
  form,
  name,
  ...field
}: Omit<TextFieldProps, "name" | "describedBy" | "form"> & {
  name: F;
  form: { errorFor(field: F): ReactNode; describedBy(field: F): string | undefined };
}) {
  return (
    <>
      <TextField name={name} describedBy={form.describedBy(name)} {...field} />
      {form.errorFor(name)}
    </>
  );
}

/** What the frame needs of a form's state, whatever the page's own fields are. */
type SignupFormState = Pick<
  ReturnType<typeof useSignupForm<CommonField>>,
  "password" | "setPassword" | "confirmPassword" | "setConfirmPassword" | "agreed" | "setAgreed" | "busy" | "doneEmail"
> & {
  errorFor(field: CommonField): ReactNode;
  describedBy(field: CommonField): string | undefined;
};

type SignupFormFrameProps = {
  title: string;
  intro: ReactNode;
  /** the rules shown under the password field */
  passwordHint: string;
  form: SignupFormState;
  onSubmit(event: FormEvent<HTMLFormElement>): void;
  /** the page's own fields, above the passwords */
  children: ReactNode;
};

/**
 * A sign-up page: the page's own fields, then password and confirmation, the terms, "Create account"
 * and the form's error; once the account is created, the notice to open the e-mailed link instead.
 */
export function SignupFormFrame({ title, intro, passwordHint, form, onSubmit, children }: SignupFormFrameProps) {
  if (form.doneEmail) {
    return (
      <Page title={title} width="narrow">
        <SignupDone email={form.doneEmail} />
      </Page>
    );
  }
  return (
    <Page title={title} width="narrow" intro={intro}>
      <form className="card form" onSubmit={onSubmit} noValidate>
        {children}
        <SignupField
          form={form}
          label="Password"
          type="password"
          name="password"
          autoComplete="new-password"
          required
          hint={passwordHint}
          value={form.password}
          onChange={(e) => form.setPassword(e.target.value)}
        />
        <SignupField
          form={form}
          label="Confirm password"
          type="password"
          name="confirmPassword"
          autoComplete="new-password"
          required
          value={form.confirmPassword}
          onChange={(e) => form.setConfirmPassword(e.target.value)}
        />
        <TermsConsent checked={form.agreed} onChange={form.setAgreed} errorId={form.describedBy("terms")} />
        {form.errorFor("terms")}
        <SubmitButton busy={form.busy}>Create account</SubmitButton>
        {form.errorFor("form")}
      </form>
    </Page>
  );
}
