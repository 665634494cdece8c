import type { AccountRecord } from "@shared/admin";
import { normaliseHost } from "@shared/sites";
import { useState } from "react";
import { adminApi, failureReason } from "../api";
import { WebsiteLink } from "./website-link";

/**
 * An employer's website, whether it is proved (codes verify there and the caller card shows it),
 * and for an unproved one a button to vouch for it after checking it by other means.
 */
export function WebsiteProof({ account }: { account: AccountRecord }) {
  const [verified, setVerified] = useState(account.websiteVerified);
  const [busy, setBusy] = useState(false);
  const host = normaliseHost(account.website);

  async function vouch() {
    if (busy || host === null || account.organisationId === null) return;
    setBusy(true);
    try {
      await adminApi.verifySite(account.organisationId, host);
      setVerified(true);
    } catch (error) {
      alert(`Could not mark the website verified: ${failureReason(error)}`);
    } finally {
      setBusy(false);
    }
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
