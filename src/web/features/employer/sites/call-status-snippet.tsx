import { MESSAGES } from "@shared/messages";
import { usePublicConfig } from "@web/lib/public-config";
import { useCopy } from "@web/lib/use-copy";
import "./call-status-snippet.css";

/** The tag an organisation puts on its signed-in pages; `data-token-url` is its own same-origin route. */
export function callStatusTag(script: { src: string; integrity: string }): string {
  return `<script src="${script.src}"
        integrity="${script.integrity}"
        crossorigin="anonymous" referrerpolicy="no-referrer"
        data-token-url="/callproof/status-token" async></script>`;
}

/**
 * Sites and widget → "Call status in your app": the call-status component's tag, with its versioned path and
 * SRI hash (from GET /api/public-config), and where the token comes from (docs/calls.md).
 */
export function CallStatusSnippet() {
  const config = usePublicConfig();
  const script = config?.callStatusScript ?? null;
  const tag = script ? callStatusTag(script) : "";
  const { state, copy } = useCopy(tag);

  return (
    <section className="card call-status-snippet" aria-labelledby="call-status-snippet-title">
      <div className="call-status-snippet__header">
        <h3 id="call-status-snippet-title" className="call-status-snippet__title">
          Call status in your app
        </h3>
        {script && (
          <button type="button" className="button button--secondary button--small" onClick={copy}>
            {state === "copied" ? MESSAGES.copied : "Copy"}
            <span className="visually-hidden"> the call-status tag</span>
          </button>
        )}
      </div>
      <p className="muted">
        On a page your customers are signed in to, this shows them live whether someone from your organisation is
        calling them now, and lets your employees ask them to confirm a call. <code>data-token-url</code> is a route of
        yours, on the same site, that answers <code>{'{"token": "cps_…"}'}</code> for the customer signed in there: it
        asks CallProof for a status token with the customer reference from your own session, never one the page sends.
        The whole set-up, and what a customer's Yes does and does not prove, is in CallProof's docs/calls.md.
      </p>
      {script ? (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take focus to scroll by keyboard
        <pre className="call-status-snippet__code" tabIndex={0}>
          <code>{tag}</code>
        </pre>
      ) : (
        <p className="muted">
          {config === undefined ? "Loading…" : "The call-status component is not built on this server yet."}
        </p>
      )}
      <p className="visually-hidden" role="status">
        {state === "copied" ? `Call-status tag: ${MESSAGES.copied}` : state === "failed" ? MESSAGES.copyFailed : ""}
      </p>
    </section>
  );
}
