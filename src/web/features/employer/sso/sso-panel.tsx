import { SSO_TEXT } from "@shared/sso-texts";
import { ConfirmButton } from "@web/components/ui/confirm-button";
import { CopyableValue } from "@web/components/ui/copyable-value";
import { FormError } from "@web/components/ui/form-error";
import { SubmitButton } from "@web/components/ui/submit-button";
import { TextField } from "@web/components/ui/text-field";
import type { FormEvent } from "react";
import { Checkbox, Loaded, PanelStatus, usePanelForm } from "../components/panel";
import { ssoApi, useSsoConnection } from "./api";

/**
 * The organisation's single sign-on: issuer URL, client id, client secret (write-only), the redirect
 * URI to paste into the provider, "Require single sign-on" and "Create accounts on first sign-in".
 * Saving checks the issuer at once; what failed is shown under the form.
 */
export function SsoPanel() {
  const sso = useSsoConnection();
  const connection = sso.data;
  const empty = { issuer: "", clientId: "", clientSecret: "", enforced: false, jit: true };
  // The form shows the connection as loaded and as saved (the secret is write-only: never filled).
  const { form, fields, setFields, set, field, save, act, notice } = usePanelForm(empty, {
    data: connection,
    fill: (saved) =>
      saved
        ? {
            issuer: saved.issuer,
            clientId: saved.clientId,
            clientSecret: "",
            enforced: saved.enforced,
            jit: saved.jitProvisioning,
          }
        : undefined,
    failed: SSO_TEXT.loadFailed,
  });

  async function submit(event: FormEvent) {
    event.preventDefault();
    const { issuer, clientId, clientSecret, enforced, jit } = fields;
    await save(async () => {
      const saved = await ssoApi.save({
        issuer: issuer.trim(),
        clientId: clientId.trim(),
        ...(clientSecret ? { clientSecret } : {}),
        enforced,
        jitProvisioning: jit,
      });
      sso.setData(saved);
      set("clientSecret")("");
    }, SSO_TEXT.saved);
  }

  const remove = () =>
    act(async () => {
      await ssoApi.remove();
      sso.setData(null);
      setFields(empty);
      return SSO_TEXT.removed;
    });

  return (
    <Loaded state={sso} failed={SSO_TEXT.loadFailed}>
      {() => (
        <div className="sso">
          <p className="muted">{SSO_TEXT.intro}</p>
          <CopyableValue label={SSO_TEXT.redirectUriLabel} value={connection?.redirectUri ?? ssoApi.redirectUri()} />
          <form className="card sso__form" onSubmit={submit} noValidate>
            <TextField
              label={SSO_TEXT.issuerLabel}
              hint={SSO_TEXT.issuerHint}
              type="url"
              inputMode="url"
              autoComplete="off"
              spellCheck={false}
              maxLength={500}
              {...field("issuer")}
              required
            />
            <TextField
              label={SSO_TEXT.clientIdLabel}
              autoComplete="off"
              spellCheck={false}
              maxLength={255}
              {...field("clientId")}
              required
            />
            <TextField
              label={SSO_TEXT.clientSecretLabel}
              hint={connection ? SSO_TEXT.clientSecretKept : undefined}
              type="password"
              autoComplete="new-password"
              spellCheck={false}
              maxLength={1000}
              {...field("clientSecret")}
              required={!connection}
            />
            {connection?.secretHint && <p className="muted">{SSO_TEXT.clientSecretHint(connection.secretHint)}</p>}
            <Checkbox
              className="sso__option"
              label={SSO_TEXT.enforcedLabel}
              hint={SSO_TEXT.enforcedHint}
              checked={fields.enforced}
              onChange={set("enforced")}
            />
            <Checkbox
              className="sso__option"
              label={SSO_TEXT.jitLabel}
              hint={SSO_TEXT.jitHint}
              checked={fields.jit}
              onChange={set("jit")}
            />
            <FormError form={form} />
            <SubmitButton busy={form.busy} className="button button--primary">
              {form.busy ? SSO_TEXT.saving : SSO_TEXT.save}
            </SubmitButton>
          </form>
          <PanelStatus notice={notice} className="sso__notice" />
          {connection && (
            <div className="sso__actions">
              <ConfirmButton label={SSO_TEXT.remove} subject={connection.issuer} onConfirm={remove} />
            </div>
          )}
        </div>
      )}
    </Loaded>
  );
}
