import { ACCOUNT_TEXT, deviceLabel, type SessionAnswer } from "@shared/account";
import { Notice } from "@web/components/ui/notice";
import { errorMessage } from "@web/lib/api";
import { useState } from "react";
import { accountApi } from "../api";
import { formatDateTime } from "./format";

/** The live sessions, this device first and marked, and "Sign out other sessions". */
export function SessionsPanel({
  sessions,
  onChanged,
}: {
  sessions: SessionAnswer[];
  onChanged(): void | Promise<void>;
}) {
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ tone: "success" | "error"; text: string } | null>(null);
  const ordered = [...sessions].sort((a, b) => Number(b.current) - Number(a.current));

  async function signOutOthers() {
    if (busy) return;
    setBusy(true);
    setResult(null);
    try {
      const { count } = await accountApi.revokeOtherSessions();
      setResult({ tone: "success", text: ACCOUNT_TEXT.otherSessionsEnded(count) });
      await onChanged();
    } catch (err) {
      setResult({ tone: "error", text: errorMessage(err, "Failed to sign out the other sessions.") });
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="card account-section" aria-labelledby="sessions-title">
      <h2 id="sessions-title">Sessions</h2>
      <p className="muted">Where your account is signed in now.</p>
      <ul className="account-list" aria-label="Active sessions">
        {ordered.map((s) => (
          <li key={s.id} className="account-item">
            <p className="account-item__title">
              {deviceLabel(s.userAgent)}
              {s.current && <span className="account-badge">This device</span>}
            </p>
            <dl className="account-item__facts">
              <div>
                <dt>IP address</dt>
                <dd>{s.ip ?? "—"}</dd>
              </div>
              <div>
                <dt>Started</dt>
                <dd>{formatDateTime(s.createdAt)}</dd>
              </div>
              <div>
                <dt>Last seen</dt>
                <dd>{formatDateTime(s.lastSeenAt)}</dd>
              </div>
            </dl>
          </li>
        ))}
      </ul>
      <div className="account-actions">
        <button
          type="button"
          className="button button--secondary"
          onClick={() => void signOutOthers()}
          aria-disabled={busy || undefined}
        >
          Sign out other sessions
        </button>
      </div>
      {result && <Notice tone={result.tone}>{result.text}</Notice>}
    </section>
  );
}
