import { CODES_TEXT, loadCallProofWidget, WIDGET_DEFAULT_TARGET_ID } from "@shared/codes";
import { UI_TIMING } from "@shared/constants";
import { MESSAGES } from "@shared/messages";
import { Page } from "@web/components/ui/page";
import { useEffect } from "react";
import "../components/codes.css";

/** /in-a-call: what to do when someone calls, and the verification widget itself. */
export function InACallPage() {
  useEffect(
    () =>
      // The app's CSP allows scripts from this site only: the same loader as the /download snippet injects /widget.js.
      loadCallProofWidget({
        src: `${window.location.origin}/widget.js`,
        target: `#${WIDGET_DEFAULT_TARGET_ID}`,
        tries: UI_TIMING.widgetLoadTries,
        delayMs: UI_TIMING.widgetLoadDelayMs,
        failureText: MESSAGES.widgetLoadFailed,
      }),
    [],
  );

  return (
    <Page title={CODES_TEXT.inACallTitle}>
      <div className="in-a-call">
        <section aria-labelledby="in-a-call-steps">
          <h2 id="in-a-call-steps">Someone is calling on behalf of an organisation?</h2>
          <p>Before you share anything, check that they are who they say they are.</p>
          <ol>
            <li>
              Ask the caller for their three-word identity code. They create it in CallProof; it works for one minute
              and only once.
            </li>
            <li>
              Type the three words into the box on this page (or in the CallProof box on the organisation's own website)
              and press Verify.
            </li>
            <li>If it says Verified, check that the name and organisation are the ones the caller gave you.</li>
            <li>
              If the code is not valid, or the caller will not give one, end the call. Call the organisation back on a
              number you find yourself, such as on its official website or your statement.
            </li>
          </ol>
          <p className="muted">
            A genuine caller never needs your password, PIN or one-time codes, and never minds you checking.
          </p>
        </section>
        <section aria-label="Verify a caller" className="widget-slot">
          <div id={WIDGET_DEFAULT_TARGET_ID} />
        </section>
      </div>
    </Page>
  );
}
