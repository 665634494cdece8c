import { ERROR_CODES } from "@shared/error-codes";
import { SCIM_TEXT } from "@shared/scim";
import { ConfirmButton } from "@web/components/ui/confirm-button";
import { CopyableValue } from "@web/components/ui/copyable-value";
import { Notice } from "@web/components/ui/notice";
import { ApiError, errorMessage } from "@web/lib/api";
import { useAuth } from "@web/lib/auth";
import { useState } from "react";
import { scimApi, useScimStatus } from "./api";

const dateTime = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "short" });
const shown = (iso: string | null, empty: string) =>
  iso ? <time dateTime={iso}>{dateTime.format(new Date(iso))}</time> : empty;

/**
 * Provisioning (SCIM): the base URL to paste into the identity provider, "Create token" (the token is
 * shown once), when it was created and last used, and "Revoke" (pressed twice).
 */
export function ScimPanel() {
  const { data: status, error, reload } = useScimStatus();
  const [token, setToken] = useState<string | null>(null);
  const [notice, setNotice] = useState<{ tone: "error" | "success"; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [needsSignIn, setNeedsSignIn] = useState(false);
  const { signOut, signingOut } = useAuth();

  async function create() {
    if (busy) return;
    setBusy(true);
    setNotice(null);
    setNeedsSignIn(false);
    try {
      setToken((await scimApi.createToken()).token);
      await reload();
    } catch (error) {
      setToken(null);
      setNeedsSignIn(error instanceof ApiError && error.code === ERROR_CODES.recentSignInRequired);
      setNotice({ tone: "error", text: errorMessage(error, SCIM_TEXT.actionFailed) });
    } finally {
      setBusy(false);
    }
  }

  async function revoke() {
    try {
      await scimApi.revokeToken();
      setToken(null);
      setNotice({ tone: "success", text: SCIM_TEXT.revoked });
      await reload();
    } catch (error) {
      setNotice({ tone: "error", text: errorMessage(error, SCIM_TEXT.actionFailed) });
    }
  }

  if (error) return <Notice tone="error">{errorMessage(error, SCIM_TEXT.loadFailed)}</Notice>;
  if (!status) {
    return (
      <p className="muted" role="status">
        Loading…
      </p>
    );
  }

  const hasToken = status.tokenCreatedAt !== null;
  return (
    <div className="scim">
      <p className="muted">{SCIM_TEXT.intro}</p>
      <div className="card">
        <CopyableValue label={SCIM_TEXT.baseUrlLabel} value={status.baseUrl} />
        {hasToken ? (
          <dl className="employer-profile__facts">
            <div>
              <dt>{SCIM_TEXT.createdAt}</dt>
              <dd>{shown(status.tokenCreatedAt, "—")}</dd>
            </div>
            <div>
              <dt>{SCIM_TEXT.lastUsedAt}</dt>
              <dd>{shown(status.lastUsedAt, SCIM_TEXT.neverUsed)}</dd>
            </div>
          </dl>
        ) : (
          <p>{SCIM_TEXT.noToken}</p>
        )}
        <div className="webhook__actions">
          <button
            type="button"
            className="button button--primary"
            aria-disabled={busy || undefined}
            onClick={() => void create()}
          >
            {hasToken ? SCIM_TEXT.replace : SCIM_TEXT.create}
          </button>
          {hasToken && <ConfirmButton label={SCIM_TEXT.revoke} subject={SCIM_TEXT.revokeSubject} onConfirm={revoke} />}
        </div>
      </div>
      {token && (
        <Notice tone="success">
          <span>{SCIM_TEXT.created}</span>
        </Notice>
      )}
      {token && <CopyableValue label={SCIM_TEXT.tokenLabel} value={token} />}
      {notice && <Notice tone={notice.tone}>{notice.text}</Notice>}
      {needsSignIn && (
        <p>
          <button
            type="button"
            className="button button--secondary button--small"
            onClick={() => void signOut()}
            disabled={signingOut}
          >
            {SCIM_TEXT.signInAgain}
          </button>
        </p>
      )}
    </div>
  );
}
