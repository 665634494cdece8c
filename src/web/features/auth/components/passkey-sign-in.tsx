import { ACCOUNT_TEXT } from "@shared/account-texts";
import type { Role } from "@shared/constants";
import type { AuthenticationResponseJSON, PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";
import { errorMessage, send } from "@web/lib/api";
import { useEffect, useRef, useState } from "react";

/** The WebAuthn browser helpers load on first use, so the sign-in page's first bundle stays small. */
const webauthn = () => import("@simplewebauthn/browser");

const passkeyApi = {
  // @simplewebauthn/server's options, passed through: the server's schema checks only their challenge.
  options: async () => (await send("passkeySignInOptions")) as unknown as PublicKeyCredentialRequestOptionsJSON,
  verify: (response: AuthenticationResponseJSON) =>
    send("signInWithPasskey", {
      body: { response: { ...response, clientExtensionResults: { ...response.clientExtensionResults } } },
    }),
};

const isCancel = (err: unknown) =>
  err instanceof Error && (err.name === "NotAllowedError" || err.name === "AbortError");

type PasskeySignInProps = {
  onSignedIn(role: Role): void | Promise<void>;
  /** a message to show under the form, or null to clear it */
  onError(message: string | null): void;
};

/**
 * "Sign in with a passkey" (no e-mail typed first: the passkey names the account) and, where the
 * browser offers it, the user's passkeys in the e-mail field's autofill. Either signs in at once.
 */
export function PasskeySignIn({ onSignedIn, onError }: PasskeySignInProps) {
  const [busy, setBusy] = useState(false);
  const [supported, setSupported] = useState(true);
  const latest = useRef({ onSignedIn, onError });
  latest.current = { onSignedIn, onError };

  // Conditional UI: a passkey chosen from the e-mail field's autofill signs in straight away.
  useEffect(() => {
    // Aborted when the page goes: the ceremony is cancelled and nothing is shown.
    const gone = new AbortController();
    const live = () => !gone.signal.aborted;
    void (async () => {
      const lib = await webauthn();
      if (!lib.browserSupportsWebAuthn()) {
        if (live()) setSupported(false);
        return;
      }
      if (!(await lib.browserSupportsWebAuthnAutofill()) || !live()) return;
      let optionsJSON: PublicKeyCredentialRequestOptionsJSON;
      try {
        optionsJSON = await passkeyApi.options();
      } catch (err) {
        // Autofill is an extra: without it the page works as before, so say nothing.
        console.warn("passkey autofill unavailable", err);
        return;
      }
      if (!live()) return;
      try {
        const response = await lib.startAuthentication({ optionsJSON, useBrowserAutofill: true });
        const { role } = await passkeyApi.verify(response);
        await latest.current.onSignedIn(role);
      } catch (err) {
        // A ceremony replaced by the button, or left when the page closes, is not an error.
        if (live() && !isCancel(err) && !(err instanceof Error && err.message.includes("abort"))) {
          latest.current.onError(errorMessage(err, ACCOUNT_TEXT.passkeySignInFailed));
        }
      }
    })();
    return () => {
      gone.abort();
      void webauthn().then((lib) => lib.WebAuthnAbortService.cancelCeremony());
    };
  }, []);

  async function signIn() {
    if (busy) return;
    setBusy(true);
    onError(null);
    try {
      const lib = await webauthn();
      const optionsJSON = await passkeyApi.options();
      const response = await lib.startAuthentication({ optionsJSON });
      const { role } = await passkeyApi.verify(response);
      await onSignedIn(role);
    } catch (err) {
      onError(isCancel(err) ? ACCOUNT_TEXT.passkeyCancelled : errorMessage(err, ACCOUNT_TEXT.passkeySignInFailed));
      setBusy(false);
    }
  }

  if (!supported) return null;
  return (
    <button
      type="button"
      className="button button--secondary button--block"
      onClick={() => void signIn()}
      aria-disabled={busy || undefined}
      data-busy={busy || undefined}
    >
      Sign in with a passkey
    </button>
  );
}
