import { CODES_TEXT } from "@shared/codes";
import { LANGUAGE_NAMES, LANGUAGES, type Language } from "@shared/languages";
import { Notice } from "@web/components/ui/notice";
import { Page } from "@web/components/ui/page";
import type { ReactNode } from "react";
import { type CustomerCheck, useClientInfo, useCustomerCheck, useCustomerLanguage, useIdentityCode } from "../api";
import "@web/components/ui/ui.css";
import "../components/codes.css";

/** What the app puts below the specified screen (the call panel) and the call a new code belongs to. */
export type DashboardExtras = {
  /** the call a new code belongs to, started if needed (null: none); throws to stop the code */
  callForCode?: () => Promise<string | null>;
  below?: ReactNode;
};

/**
 * /dashboard, the Identity Code screen: who you are, and a 60-second three-word code on demand; below it,
 * whatever the app adds (the call panel), which leaves the specified screen as it is.
 */
export function DashboardPage({ callForCode, below }: DashboardExtras = {}) {
  const info = useClientInfo();
  const code = useIdentityCode();
  const [language, setLanguage] = useCustomerLanguage();
  const check = useCustomerCheck(code.id);
  // A verified code's words and its "Expires in: N seconds" line stay until the countdown reaches 0, as the
  // specification has it (the verified notice sits beside them), then go like any other's; the notice stays.
  const verified = check?.state === "verified";

  return (
    <Page title={CODES_TEXT.dashboardTitle}>
      <div className="identity">
        {info && (
          <dl className="identity__who card">
            <dt>Name</dt>
            <dd>{info.fullName}</dd>
            {info.companyName && (
              <>
                <dt>Company</dt>
                <dd>{info.companyName}</dd>
              </>
            )}
            {info.website && (
              <>
                <dt>Website</dt>
                <dd>
                  <a href={info.website} target="_blank" rel="noopener noreferrer">
                    {info.website}
                    <span className="visually-hidden"> (opens in a new tab)</span>
                  </a>
                </dd>
              </>
            )}
          </dl>
        )}

        <div className="field identity__language">
          <label htmlFor="customer-language" className="field__label">
            {CODES_TEXT.customerLanguage}
          </label>
          <select
            id="customer-language"
            className="field__input"
            value={language}
            onChange={(event) => setLanguage(event.target.value as Language)}
          >
            {LANGUAGES.map((l) => (
              <option key={l} value={l} lang={l}>
                {LANGUAGE_NAMES[l]}
              </option>
            ))}
          </select>
        </div>

        <div>
          <button
            type="button"
            className="button button--primary"
            onClick={() => void code.generate(language, callForCode)}
            aria-disabled={code.busy || undefined}
            data-busy={code.busy || undefined}
          >
            {CODES_TEXT.generateButton}
          </button>
        </div>

        {code.error && <Notice tone="error">{code.error}</Notice>}

        <section className="card" aria-label={CODES_TEXT.codeLabel} hidden={!code.words && !code.expired}>
          <div role="status" aria-live="polite" aria-atomic="true">
            {code.words ? (
              <>
                <p className="code-card__label">{CODES_TEXT.codeLabel}</p>
                <p className="identity__words" lang={code.language}>
                  {code.words.join(" / ")}
                </p>
              </>
            ) : code.expired && !verified ? (
              <p className="muted">{CODES_TEXT.codeExpired}</p>
            ) : null}
          </div>
          {code.words && <p className="identity__timer">{CODES_TEXT.expiresIn(code.secondsLeft)}</p>}
          {code.words && !verified && <p className="muted">{CODES_TEXT.shareHint}</p>}
          {/* Its own live region: a screen reader hears the customer's check the moment it happens. */}
          <p className="customer-check" role="status" aria-live="polite" data-state={check?.state}>
            {checkText(check, code.expired)}
          </p>
        </section>
      </div>
      {below}
    </Page>
  );
}

/** The line under the words: waiting, verified at a time (on a site), or expired unverified. */
function checkText(check: CustomerCheck | null, expired: boolean): string {
  if (!check) return "";
  if (check.state === "verified") {
    const time = new Date(check.at).toLocaleTimeString("en-GB", { hour12: false });
    return CODES_TEXT.verifiedByCustomer(time, check.site);
  }
  return check.state === "expired" || expired ? CODES_TEXT.expiredNotVerified : CODES_TEXT.waitingForCustomer;
}
