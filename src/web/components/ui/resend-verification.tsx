import { MESSAGES } from "@shared/messages";
import { errorMessage, send } from "@web/lib/api";
import { useState } from "react";
import "./ui.css";

/**
 * "Resend verification e-mail", wherever someone is told to verify their address: asks for a new link
 * for `email` and says what the server answered (the same for every address).
 */
export function ResendVerification({ email }: { email: string }) {
  const [state, setState] = useState<{ busy: boolean; said: string | null }>({ busy: false, said: null });

  async function resend() {
    if (state.busy) return;
    setState({ busy: true, said: null });
    try {
      const answer = await send("resendVerificationEmail", { body: { email: email.trim() } });
      setState({ busy: false, said: answer.message });
    } catch (error) {
      setState({ busy: false, said: errorMessage(error, MESSAGES.verificationResendFailed) });
    }
  }

  return (
    <div className="resend-verification">
      <button
        type="button"
        className="button button--secondary"
        onClick={() => void resend()}
        aria-disabled={state.busy || undefined}
        data-busy={state.busy || undefined}
      >
        {MESSAGES.resendVerification}
      </button>
      <p role="status" className="resend-verification__status">
        {state.said}
      </p>
    </div>
  );
}
