import type { SsoDiscoverAnswer } from "@shared/sso";
import { SSO_TEXT } from "@shared/sso-texts";
import { errorMessage } from "@web/lib/api";
import { useEffect, useState } from "react";
import { authApi } from "../api";
import "./sso-sign-in.css";

type SsoOffer = Extract<SsoDiscoverAnswer, { sso: true }>;

const LOOKS_LIKE_EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DEBOUNCE_MS = 400;

/**
 * Whether the typed e-mail's organisation signs in with single sign-on: asked once typing pauses, the
 * answer for an older e-mail dropped. Null while unknown or when it does not.
 */
export function useSsoOffer(email: string): SsoOffer | null {
  const [offer, setOffer] = useState<{ email: string; answer: SsoOffer } | null>(null);
  const typed = email.trim().toLowerCase();
  useEffect(() => {
    if (!LOOKS_LIKE_EMAIL.test(typed)) return;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      authApi
        .ssoDiscover(typed, controller.signal)
        .then((answer) => setOffer(answer.sso ? { email: typed, answer } : null))
        .catch(() => {
          // No answer (offline, rate-limited): the password path stays.
        });
    }, DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [typed]);
  return offer && offer.email === typed ? offer.answer : null;
}

type SsoSignInProps = {
  email: string;
  offer: SsoOffer;
  /** a message to show under the form, or null to clear it */
  onError(message: string | null): void;
};

/**
 * "Continue with single sign-on": the main action when the organisation requires it. It asks the server to
 * start (a POST, which only this page can make), then goes where the answer says.
 */
export function SsoSignIn({ email, offer, onError }: SsoSignInProps) {
  const [busy, setBusy] = useState(false);
  const continueWithSso = async () => {
    if (busy) return;
    setBusy(true);
    onError(null);
    try {
      const { url } = await authApi.ssoStart(email.trim());
      window.location.assign(url);
    } catch (err) {
      onError(errorMessage(err, SSO_TEXT.startFailed));
      setBusy(false);
    }
  };
  return (
    <div className="sso-offer">
      <p className="sso-offer__text" role="status">
        {offer.enforced ? SSO_TEXT.ssoRequired(offer.organisation) : SSO_TEXT.ssoAvailable(offer.organisation)}
      </p>
      <button
        type="button"
        className={`button button--block ${offer.enforced ? "button--primary" : "button--secondary"}`}
        onClick={() => void continueWithSso()}
        aria-disabled={busy || undefined}
        data-busy={busy || undefined}
      >
        {SSO_TEXT.continueWithSso}
      </button>
    </div>
  );
}
