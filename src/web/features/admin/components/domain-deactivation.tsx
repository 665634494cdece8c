import { domainSchema } from "@shared/admin";
import { MESSAGES } from "@shared/messages";
import { FormError } from "@web/components/ui/form-error";
import { SubmitButton } from "@web/components/ui/submit-button";
import { TextField } from "@web/components/ui/text-field";
import { useSubmit } from "@web/lib/use-submit";
import { type FormEvent, useState } from "react";
import { adminApi } from "../api";

/** Deactivates every employer and client whose e-mail is at one domain, after a confirmation. */
export function DomainDeactivation({ onDone }: { onDone(): void }) {
  const [domain, setDomain] = useState("");
  const form = useSubmit();
  const [result, setResult] = useState<string | null>(null);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (form.busy) return;
    setResult(null);
    const target = form.check(domainSchema, domain, "Domain is required.");
    if (target === undefined) return;
    form.setError(null);
    if (
      !window.confirm(
        `Are you sure you want to deactivate ALL users with email domain "${target}"? This cannot be undone.`,
      )
    ) {
      return;
    }
    await form.run(
      async () => {
        const answer = await adminApi.deactivateByDomain(target);
        setResult(answer?.message ?? `Users with email domain "${target}" deactivated.`);
        setDomain("");
        onDone();
      },
      { failed: MESSAGES.deactivationFailed },
    );
  }

  return (
    <section className="admin-section" aria-labelledby="domain-title">
      <h2 id="domain-title">Deactivate Users by Email Domain</h2>
      <form className="card form inline-form danger-zone" onSubmit={submit} noValidate>
        <p className="form__lead">
          Deactivates every employer and employee account whose email address is at this domain, and signs them out.
        </p>
        <div className="inline-form__row">
          <TextField
            label="Email domain"
            name="domain"
            autoComplete="off"
            autoCapitalize="none"
            spellCheck={false}
            placeholder="example.com"
            required
            value={domain}
            onChange={(e) => setDomain(e.target.value)}
            describedBy={form.describedBy}
            className="inline-form__grow"
          />
          <SubmitButton busy={form.busy} className="button button--danger">
            Deactivate domain
          </SubmitButton>
        </div>
        <FormError form={form} />
        <div role="status">{result && <p className="notice notice--success">{result}</p>}</div>
      </form>
    </section>
  );
}
