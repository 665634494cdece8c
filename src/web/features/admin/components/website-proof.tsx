import type { AccountRecord } from "@shared/admin";
import { normaliseHost } from "@shared/sites";
import { WebsiteLink } from "@web/components/ui/website-link";
import { useState } from "react";
import { adminApi } from "../api";
import { useRowAction } from "./row-action";

/**
 * An employer's website, whether it is proved (codes verify there and the caller card shows it),
 * and for an unproved one a button to vouch for it after checking it by other means.
 */
export function WebsiteProof({ account }: { account: AccountRecord }) {
  const [verified, setVerified] = useState(account.websiteVerified);
  const action = useRowAction("Could not mark the website verified: ");
  const busy = action.busyId !== null;
  const host = normaliseHost(account.website);
  const { organisationId } = account;

  function vouch() {
    if (host === null || organisationId === null) return;
    return action.run(organisationId, async () => {
      await adminApi.verifySite(organisationId, host);
      setVerified(true);
    });
  }

  return (
    <div className="website-proof">
      <WebsiteLink url={account.website} />
      <span className={`website-proof__status website-proof__status--${verified ? "yes" : "no"}`}>
        {verified ? "Proved" : "Not proved"}
      </span>
      {!verified && host !== null && account.organisationId !== null && (
        <button
          type="button"
          className="button button--secondary website-proof__button"
          aria-disabled={busy || undefined}
          onClick={() => void vouch()}
        >
          Mark verified<span className="visually-hidden"> {host}</span>
        </button>
      )}
    </div>
  );
}
