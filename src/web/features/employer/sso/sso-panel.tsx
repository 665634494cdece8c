import { SSO_TEXT } from "@shared/sso-texts";
import { ConfirmButton } from "@web/components/ui/confirm-button";
import { CopyableValue } from "@web/components/ui/copyable-value";
import { FormError } from "@web/components/ui/form-error";
import { Notice } from "@web/components/ui/notice";
import { SubmitButton } from "@web/components/ui/submit-button";
import { TextField } from "@web/components/ui/text-field";
import { errorMessage } from "@web/lib/api";
import { useSubmit } from "@web/lib/use-submit";
import { type FormEvent, useEffect, useId, useState } from "react";
import { ssoApi, useSsoConnection } from "./api";

/**
 * The organisation's single sign-on: issuer URL, client id, client secret (write-only), the redirect
 * URI to paste into the provider, "Require single sign-on" and "Create accounts on first sign-in".
 * Saving checks the issuer at once; what failed is shown under the form.
 */
export function SsoPanel() {
  const sso = useSsoConnection();
  const connection = sso.data;
  const [notice, setNotice] = useState<string | null>(null);
  const [issuer, setIssuer] = useState("");
  const [clientId, setClientId] = useState("");
  const [clientSecret, setClientSecret] = useState("");
  const [enforced, setEnforced] = useState(false);
  const [jit, setJit] = useState(true);
  const form = useSubmit();
  const enforcedHint = useId();
  const jitHint = useId();

  // The form shows the connection as loaded and as saved.
  useEffect(() => {
    if (!connection) return;
    setIssuer(connection.issuer);
    setClientId(connection.clientId);
    setEnforced(connection.enforced);
    setJit(connection.jitProvisioning);
  }, [connection]);

  async function save(event: FormEvent) {
    event.preventDefault();
    setNotice(null);
    await form.run(
      async () => {
        const saved = await ssoApi.save({
          issuer: issuer.trim(),
          clientId: clientId.trim(),
          ...(clientSecret ? { clientSecret } : {}),
          enforced,
          jitProvisioning: jit,
        });
        sso.setData(saved);
        setClientSecret("");
        setNotice(SSO_TEXT.saved);
      },
      { failed: SSO_TEXT.loadFailed },
    );
  }

  async function remove() {
    try {
      await ssoApi.remove();
      sso.setData(null);
      setIssuer("");
      setClientId("");
      setEnforced(false);
      setJit(true);
      setNotice(SSO_TEXT.removed);
    } catch (error) {
      setNotice(errorMessage(error, SSO_TEXT.loadFailed));
    }
  }

  if (sso.error) return <Notice tone="error">{errorMessage(sso.error, SSO_TEXT.loadFailed)}</Notice>;
  if (connection === undefined) {
    return (
      <p className="muted" role="status">
        Loading…
      </p>
    );
  }

  return (
    <div className="sso">
      <p className="muted">{SSO_TEXT.intro}</p>
      <CopyableValue label={SSO_TEXT.redirectUriLabel} value={connection?.redirectUri ?? ssoApi.redirectUri()} />
      <form className="card sso__form" onSubmit={save} noValidate>
        <TextField
          label={SSO_TEXT.issuerLabel}
          hint={SSO_TEXT.issuerHint}
          type="url"
          inputMode="url"
          autoComplete="off"
          spellCheck={false}
          maxLength={500}
          value={issuer}
          onChange={(e) => setIssuer(e.target.value)}
          describedBy={form.describedBy}
          required
        />
        <TextField
          label={SSO_TEXT.clientIdLabel}
          autoComplete="off"
          spellCheck={false}
          maxLength={255}
          value={clientId}
          onChange={(e) => setClientId(e.target.value)}
          describedBy={form.describedBy}
          required
        />
        <TextField
          label={SSO_TEXT.clientSecretLabel}
          hint={connection ? SSO_TEXT.clientSecretKept : undefined}
          type="password"
          autoComplete="new-password"
          spellCheck={false}
          maxLength={1000}
          value={clientSecret}
          onChange={(e) => setClientSecret(e.target.value)}
          describedBy={form.describedBy}
          required={!connection}
        />
        {connection?.secretHint && <p className="muted">{SSO_TEXT.clientSecretHint(connection.secretHint)}</p>}
        <div className="sso__option">
          <label className="checkbox">
            <input
              type="checkbox"
              checked={enforced}
              aria-describedby={enforcedHint}
              onChange={(e) => setEnforced(e.target.checked)}
            />{" "}
            {SSO_TEXT.enforcedLabel}
          </label>
          <p id={enforcedHint} className="field__hint">
            {SSO_TEXT.enforcedHint}
          </p>
        </div>
        <div className="sso__option">
          <label className="checkbox">
            <input
              type="checkbox"
              checked={jit}
              aria-describedby={jitHint}
              onChange={(e) => setJit(e.target.checked)}
            />{" "}
            {SSO_TEXT.jitLabel}
          </label>
          <p id={jitHint} className="field__hint">
            {SSO_TEXT.jitHint}
          </p>
        </div>
        <FormError form={form} />
        <SubmitButton busy={form.busy} className="button button--primary">
          {form.busy ? SSO_TEXT.saving : SSO_TEXT.save}
        </SubmitButton>
      </form>
      {notice && (
        <p role="status" className="sso__notice">
          {notice}
        </p>
      )}
      {connection && (
        <div className="sso__actions">
          <ConfirmButton label={SSO_TEXT.remove} subject={connection.issuer} onConfirm={remove} />
        </div>
      )}
    </div>
  );
}
