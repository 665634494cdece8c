import { CODES_TEXT } from "@shared/codes";
import { Notice } from "@web/components/ui/notice";
import { Page } from "@web/components/ui/page";
import { useClientInfo, useIdentityCode } from "../api";
import "@web/components/ui/ui.css";
import "../components/codes.css";

/** /dashboard, the Identity Code screen: who you are, and a 60-second three-word code on demand. */
export function DashboardPage() {
  const info = useClientInfo();
  const code = useIdentityCode();

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

        <div>
          <button
            type="button"
            className="button button--primary"
            onClick={() => void code.generate()}
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
                <p className="identity__words">{code.words.join(" / ")}</p>
              </>
            ) : code.expired ? (
              <p className="muted">{CODES_TEXT.codeExpired}</p>
            ) : null}
          </div>
          {code.words && (
            <>
              <p className="identity__timer">{CODES_TEXT.expiresIn(code.secondsLeft)}</p>
              <p className="muted">{CODES_TEXT.shareHint}</p>
            </>
          )}
        </section>
      </div>
    </Page>
  );
}
