import { ACCOUNT_TEXT } from "@shared/account";
import { Notice } from "@web/components/ui/notice";
import { Page } from "@web/components/ui/page";
import { useAccount } from "../api";
import { ChangePasswordForm } from "../components/change-password-form";
import { PasskeysPanel } from "../components/passkeys-panel";
import { ProfilePanel } from "../components/profile-panel";
import { SessionsPanel } from "../components/sessions-panel";
import "../account.css";

/** The signed-in user's own account: profile, password, sessions and passkeys. */
export function AccountPage() {
  const { state, reload } = useAccount();

  if (state.status === "loading") {
    return (
      <Page title="Account">
        <p className="page-status" role="status">
          Loading your account…
        </p>
      </Page>
    );
  }

  if (state.status === "failed") {
    return (
      <Page title="Account">
        <Notice tone="error">{ACCOUNT_TEXT.loadFailed}</Notice>
        {state.failure && <p className="muted">{state.failure}</p>}
      </Page>
    );
  }

  const { account } = state;
  return (
    <Page title="Account">
      <div className="account-grid">
        <ProfilePanel account={account} />
        <ChangePasswordForm onChanged={reload} />
        <PasskeysPanel passkeys={account.passkeys} onChanged={reload} />
        <SessionsPanel sessions={account.sessions} onChanged={reload} />
      </div>
    </Page>
  );
}
