import { ADMIN_MESSAGES, generateEmployerCodeBody } from "@shared/admin";
import { MESSAGES } from "@shared/messages";
import { CopyableValue } from "@web/components/ui/copyable-value";
import { FormError } from "@web/components/ui/form-error";
import { SubmitButton } from "@web/components/ui/submit-button";
import { TextField } from "@web/components/ui/text-field";
import { useSubmit } from "@web/lib/use-submit";
import { type FormEvent, useState } from "react";
import { adminApi } from "../api";

/** Invite an employer: an access code for their (company) e-mail, which is also e-mailed to them. */
export function EmployerCodeForm({ onGenerated }: { onGenerated(): void }) {
  const [email, setEmail] = useState("");
  const form = useSubmit();
  const [result, setResult] = useState<{ code: string; email: string } | null>(null);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (form.busy) return;
    const body = form.check(generateEmployerCodeBody, { email }, "Enter a valid email address.");
    if (!body) return;
    setResult(null);
    await form.run(
      async () => {
        const { code } = await adminApi.generateEmployerCode(body.email);
        setResult({ code, email: body.email });
        setEmail("");
        onGenerated();
      },
      { failed: MESSAGES.accessCodeFailed },
    );
  }

  return (
    <section className="admin-section" aria-labelledby="invite-title">
      <h2 id="invite-title">Generate employer access code</h2>
      <form className="card form inline-form" onSubmit={submit} noValidate>
        <div className="inline-form__row">
          <TextField
            label="Employer email"
            type="email"
            name="employerEmail"
            autoComplete="off"
            hint="A company address; the invitation with the code is emailed to it."
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            describedBy={form.describedBy}
            className="inline-form__grow"
          />
          <SubmitButton busy={form.busy} className="button button--primary">
            Generate access code
          </SubmitButton>
        </div>
        <FormError form={form} />
        <div role="status">
          {result && (
            <div className="code-result">
              <CopyableValue label="Access Code" value={result.code} />
              <p className="muted">{ADMIN_MESSAGES.invitationSent(result.email)}</p>
            </div>
          )}
        </div>
      </form>
    </section>
  );
}
