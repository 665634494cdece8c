import { type AccountRecord, ADMIN_MESSAGES } from "@shared/admin";
import { UI_TIMING } from "@shared/constants";
import { MESSAGES } from "@shared/messages";
import { countCaption, DataTable } from "@web/components/ui/data-table";
import { useEffect, useRef, useState } from "react";
import { adminApi } from "../api";
import { ActivatedBanner } from "./activated-banner";
import { RowActionButton, useRowAction } from "./row-action";
import { WebsiteProof } from "./website-proof";

type PendingAccountsProps = {
  accounts: AccountRecord[];
  loading: boolean;
  failed: boolean;
  /** the account was activated: drop its row and reload the active list */
  onActivated(id: number): void;
};

/** Employer accounts waiting for the manual check, each with an Activate button. */
export function PendingAccounts({ accounts, loading, failed, onActivated }: PendingAccountsProps) {
  const action = useRowAction(MESSAGES.activateFailedPrefix);
  const [bannerKey, setBannerKey] = useState(0);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  function activate(account: AccountRecord) {
    return action.run(account.id, async () => {
      await adminApi.activate(account.id);
      // A new key restarts the animation when accounts are activated one after another.
      setBannerKey((k) => k + 1);
      clearTimeout(timer.current);
      timer.current = setTimeout(() => setBannerKey(0), UI_TIMING.activationBannerMs);
      onActivated(account.id);
    });
  }

  return (
    <section className="admin-section" aria-labelledby="pending-title">
      <h2 id="pending-title">Pending employer accounts</h2>
      <div role="status" className="admin-section__status">
        {bannerKey > 0 && <ActivatedBanner key={bannerKey} />}
      </div>
      <DataTable
        caption={countCaption("Employer accounts awaiting activation", accounts.length)}
        head={
          <>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col">Company</th>
            <th scope="col">Website</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </>
        }
        columns={5}
        items={accounts}
        empty={loading ? "Loading…" : failed ? "Could not load the pending accounts." : "No pending accounts."}
        row={(account) => (
          <tr key={account.id}>
            <th scope="row">{account.fullName}</th>
            <td>
              {account.email}
              {!account.emailVerified && (
                <>
                  {" "}
                  <span className="website-proof__status website-proof__status--no">
                    {ADMIN_MESSAGES.emailNotVerifiedTag}
                  </span>
                </>
              )}
            </td>
            <td>{account.companyName}</td>
            <td>
              <WebsiteProof account={account} />
            </td>
            <td>
              {account.emailVerified ? (
                <RowActionButton
                  label="Activate"
                  subject={account.fullName}
                  variant="primary"
                  busy={action.busyId === account.id}
                  onClick={() => void activate(account)}
                />
              ) : (
                <span className="muted">{ADMIN_MESSAGES.activateAfterVerification}</span>
              )}
            </td>
          </tr>
        )}
      />
    </section>
  );
}
