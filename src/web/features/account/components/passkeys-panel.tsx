import { ACCOUNT_TEXT, type PasskeyAnswer, passkeyNameSchema } from "@shared/account";
import { browserSupportsWebAuthn, startRegistration, WebAuthnError } from "@simplewebauthn/browser";
import { ConfirmButton } from "@web/components/ui/confirm-button";
import { Notice } from "@web/components/ui/notice";
import { TextField } from "@web/components/ui/text-field";
import { errorMessage } from "@web/lib/api";
import { type FormEvent, useState } from "react";
import { accountApi } from "../api";
import { formatDateTime } from "./format";

type Result = { tone: "success" | "error"; text: string } | null;

/** Why the browser did not create a passkey, in words. */
function registrationFailure(err: unknown): string {
  if (err instanceof WebAuthnError && err.code === "ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED") {
    return ACCOUNT_TEXT.passkeyAlreadyRegistered;
  }
  if (err instanceof Error && err.name === "NotAllowedError") return "Adding the passkey was cancelled.";
  return errorMessage(err, ACCOUNT_TEXT.passkeyRegistrationFailed);
}

/** The user's passkeys: add one, rename or remove each. */
export function PasskeysPanel({
  passkeys,
  onChanged,
}: {
  passkeys: PasskeyAnswer[];
  onChanged(): void | Promise<void>;
}) {
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<Result>(null);
  const supported = browserSupportsWebAuthn();

  async function add() {
    if (busy) return;
    setBusy(true);
    setResult(null);
    try {
      const optionsJSON = await accountApi.passkeyOptions();
      const response = await startRegistration({ optionsJSON });
      await accountApi.addPasskey(response);
      setResult({ tone: "success", text: ACCOUNT_TEXT.passkeyAdded });
      await onChanged();
    } catch (err) {
      setResult({ tone: "error", text: registrationFailure(err) });
    } finally {
      setBusy(false);
    }
  }

  async function remove(passkey: PasskeyAnswer) {
    setResult(null);
    try {
      await accountApi.removePasskey(passkey.id);
      setResult({ tone: "success", text: ACCOUNT_TEXT.passkeyRemoved });
      await onChanged();
    } catch (err) {
      setResult({ tone: "error", text: errorMessage(err, "Failed to remove the passkey.") });
    }
  }

  return (
    <section className="card account-section" aria-labelledby="passkeys-title">
      <h2 id="passkeys-title">Passkeys</h2>
      <p className="muted">
        A passkey signs you in with your device's fingerprint, face or screen lock instead of a password and an emailed
        code. It only works on this site, so it cannot be phished.
      </p>
      {passkeys.length === 0 ? (
        <p>You have no passkeys yet.</p>
      ) : (
        <ul className="account-list" aria-label="Your passkeys">
          {passkeys.map((p) => (
            <PasskeyItem key={p.id} passkey={p} onRemove={() => remove(p)} onRenamed={onChanged} />
          ))}
        </ul>
      )}
      <div className="account-actions">
        {supported ? (
          <button
            type="button"
            className="button button--primary"
            onClick={() => void add()}
            aria-disabled={busy || undefined}
          >
            Add a passkey
          </button>
        ) : (
          <p className="muted">{ACCOUNT_TEXT.passkeyUnsupported}</p>
        )}
      </div>
      {result && <Notice tone={result.tone}>{result.text}</Notice>}
    </section>
  );
}

function PasskeyItem({
  passkey,
  onRemove,
  onRenamed,
}: {
  passkey: PasskeyAnswer;
  onRemove(): Promise<void>;
  onRenamed(): void | Promise<void>;
}) {
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(passkey.name);
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    const parsed = passkeyNameSchema.safeParse(name);
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message);
      return;
    }
    setBusy(true);
    try {
      await accountApi.renamePasskey(passkey.id, parsed.data);
      setEditing(false);
      setError(undefined);
      await onRenamed();
    } catch (err) {
      setError(errorMessage(err, "Failed to rename the passkey."));
    } finally {
      setBusy(false);
    }
  }

  return (
    <li className="account-item">
      {editing ? (
        <form className="account-rename" onSubmit={save} noValidate>
          <TextField
            label={`New name for ${passkey.name}`}
            name="passkey-name"
            maxLength={60}
            required
            value={name}
            error={error}
            onChange={(e) => setName(e.target.value)}
            autoFocus
          />
          <div className="account-actions">
            <button type="submit" className="button button--primary button--small" aria-disabled={busy || undefined}>
              Save
            </button>
            <button
              type="button"
              className="button button--secondary button--small"
              onClick={() => {
                setEditing(false);
                setName(passkey.name);
                setError(undefined);
              }}
            >
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <>
          <p className="account-item__title">{passkey.name}</p>
          <dl className="account-item__facts">
            <div>
              <dt>Created</dt>
              <dd>{formatDateTime(passkey.createdAt)}</dd>
            </div>
            <div>
              <dt>Last used</dt>
              <dd>{passkey.lastUsedAt ? formatDateTime(passkey.lastUsedAt) : "Never"}</dd>
            </div>
          </dl>
          <div className="account-actions">
            <button type="button" className="button button--secondary button--small" onClick={() => setEditing(true)}>
              Rename<span className="visually-hidden"> {passkey.name}</span>
            </button>
            <ConfirmButton label="Remove" subject={passkey.name} onConfirm={onRemove} />
          </div>
        </>
      )}
    </li>
  );
}
