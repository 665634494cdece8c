import { API_KEY_SCOPES, API_KEY_TEXT, type ApiKeyScope } from "@shared/api-keys";
import { ConfirmButton } from "@web/components/ui/confirm-button";
import { CopyableValue } from "@web/components/ui/copyable-value";
import { DataTable } from "@web/components/ui/data-table";
import { FormError } from "@web/components/ui/form-error";
import { Notice } from "@web/components/ui/notice";
import { SubmitButton } from "@web/components/ui/submit-button";
import { TextField } from "@web/components/ui/text-field";
import { errorMessage } from "@web/lib/api";
import { type FormEvent, useState } from "react";
import { CheckboxGroup, PanelStatus, usePanelForm } from "../components/panel";
import { type ApiKeyCreated, type ApiKeyItem, apiKeysApi, useApiKeys } from "./api";
import "./api-keys-panel.css";

const dateTime = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "short" });

/**
 * The organisation's API keys for /api/v1: create one with a name and scopes (the key is shown once, with
 * Copy), the list (name, prefix, scopes, created, last used) and Revoke with the "Confirm?" second press.
 */
export function ApiKeysPanel() {
  const { data: keys, error, reload } = useApiKeys();
  const [created, setCreated] = useState<ApiKeyCreated | null>(null);
  const { form, fields, setFields, set, field, save, act, notice } = usePanelForm(
    { name: "", scopes: [] as ApiKeyScope[] },
    { failed: API_KEY_TEXT.actionFailed },
  );

  async function create(event: FormEvent) {
    event.preventDefault();
    if (fields.scopes.length === 0) return form.setError(API_KEY_TEXT.noScopes);
    const ok = await save(async () => {
      setCreated(await apiKeysApi.create(fields.name.trim(), fields.scopes));
      setFields({ name: "", scopes: [] });
    });
    if (ok) await reload();
  }

  const revoke = (key: ApiKeyItem) =>
    act(async () => {
      await apiKeysApi.revoke(key.id);
      if (created?.id === key.id) setCreated(null);
      await reload();
      return API_KEY_TEXT.revoked;
    });

  if (error) return <Notice tone="error">{errorMessage(error, API_KEY_TEXT.loadFailed)}</Notice>;
  const c = API_KEY_TEXT.columns;
  return (
    <div className="api-keys">
      <p className="muted">{API_KEY_TEXT.intro}</p>
      <form className="card api-keys__form" onSubmit={create} noValidate>
        <TextField
          label={API_KEY_TEXT.nameLabel}
          hint={API_KEY_TEXT.nameHint}
          autoComplete="off"
          maxLength={100}
          {...field("name")}
          required
        />
        <CheckboxGroup
          legend={API_KEY_TEXT.scopesLegend}
          className="api-keys__scopes"
          options={API_KEY_SCOPES}
          chosen={fields.scopes}
          onChange={set("scopes")}
          label={(scope) => (
            <>
              <code>{scope}</code> <span className="muted">{API_KEY_TEXT.scopeHelp[scope]}</span>
            </>
          )}
        />
        <FormError form={form} />
        <SubmitButton busy={form.busy} className="button button--primary">
          {API_KEY_TEXT.create}
        </SubmitButton>
      </form>

      {created && (
        <Notice tone="success">
          <p>{API_KEY_TEXT.created}</p>
          <CopyableValue label={API_KEY_TEXT.keyLabel} value={created.key} />
        </Notice>
      )}
      <PanelStatus notice={notice} className="api-keys__notice" />

      <DataTable
        caption={API_KEY_TEXT.title}
        head={
          <>
            <th scope="col">{c.name}</th>
            <th scope="col">{c.prefix}</th>
            <th scope="col">{c.scopes}</th>
            <th scope="col">{c.created}</th>
            <th scope="col">{c.lastUsed}</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </>
        }
        columns={6}
        items={keys ?? []}
        empty={keys === undefined ? "Loading…" : API_KEY_TEXT.none}
        row={(k) => (
          <tr key={k.id}>
            <td className="data-table__text">{k.name}</td>
            <td>
              <code>{k.prefix}…</code>
            </td>
            <td className="data-table__text">
              {k.scopes.map((s) => (
                <code key={s} className="api-keys__scope">
                  {s}
                </code>
              ))}
            </td>
            <td className="data-table__nowrap">
              <time dateTime={k.createdAt}>{dateTime.format(new Date(k.createdAt))}</time>
            </td>
            <td className="data-table__nowrap">
              {k.lastUsedAt ? (
                <time dateTime={k.lastUsedAt}>{dateTime.format(new Date(k.lastUsedAt))}</time>
              ) : (
                API_KEY_TEXT.never
              )}
            </td>
            <td>
              <ConfirmButton label={API_KEY_TEXT.revoke} subject={k.name} onConfirm={() => revoke(k)} />
            </td>
          </tr>
        )}
      />
    </div>
  );
}
