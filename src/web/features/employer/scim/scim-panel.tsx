import { ERROR_CODES } from "@shared/error-codes";
import { SCIM_TEXT } from "@shared/scim";
import { ConfirmButton } from "@web/components/ui/confirm-button";
import { CopyableValue } from "@web/components/ui/copyable-value";
import { FormError } from "@web/components/ui/form-error";
import { Notice } from "@web/components/ui/notice";
import { useSubmit } from "@web/lib/use-submit";
import { useState } from "react";
import { Loaded, SignInAgain, usePanelActions } from "../components/panel";
import { scimApi, useScimStatus } from "./api";

const dateTime = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "short" });
const shown = (iso: string | null, empty: string) =>
  iso ? <time dateTime={iso}>{dateTime.format(new Date(iso))}</time> : empty;

/**
 * Provisioning (SCIM): the base URL to paste into the identity provider, "Create token" (the token is
 * shown once), when it was created and last used, and "Revoke" (pressed twice).
 */
export function ScimPanel() {
  const scim = useScimStatus();
  const [token, setToken] = useState<string | null>(null);
  const { notice, act, say } = usePanelActions(SCIM_TEXT.actionFailed);
  const form = useSubmit();

  async function create() {
    if (form.busy) return;
    say(null);
    await form.run(
      async () => {
        // A failed replacement shows no token: the one shown before may be revoked by now.
        const created = await scimApi.createToken().catch((error: unknown) => {
          setToken(null);
          throw error;
        });
        setToken(created.token);
        await scim.reload();
      },
      { failed: SCIM_TEXT.actionFailed },
    );
  }

  const revoke = () => {
    form.setError(null);
    return act(async () => {
      await scimApi.revokeToken();
      setToken(null);
      await scim.reload();
      return SCIM_TEXT.revoked;
    });
  };

  return (
    <Loaded state={scim} failed={SCIM_TEXT.loadFailed}>
      {(status) => {
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
                  aria-disabled={form.busy || undefined}
                  onClick={() => void create()}
                >
                  {hasToken ? SCIM_TEXT.replace : SCIM_TEXT.create}
                </button>
                {hasToken && (
                  <ConfirmButton label={SCIM_TEXT.revoke} subject={SCIM_TEXT.revokeSubject} onConfirm={revoke} />
                )}
              </div>
            </div>
            {token && (
              <Notice tone="success">
                <span>{SCIM_TEXT.created}</span>
              </Notice>
            )}
            {token && <CopyableValue label={SCIM_TEXT.tokenLabel} value={token} />}
            {notice && <Notice tone={notice.tone}>{notice.text}</Notice>}
            <FormError form={form} />
            {form.errorCode === ERROR_CODES.recentSignInRequired && (
              <p>
                <SignInAgain label={SCIM_TEXT.signInAgain} />
              </p>
            )}
          </div>
        );
      }}
    </Loaded>
  );
}
