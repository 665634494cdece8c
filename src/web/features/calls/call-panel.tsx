import { Notice } from "@web/components/ui/notice";
import type { FormEvent } from "react";
import { CALL_PANEL_TEXT as T } from "./texts";
import type { CallCheck, CallPanel as CallPanelState } from "./use-call";
import "./calls.css";

const time = (iso: string) => new Date(iso).toLocaleTimeString("en-GB", { hour12: false });

/** The name of the API key that answered (its prefix when the name is not known). */
function keyNameOf(check: CallCheck): string {
  return check.keyName || (check.answeredVia ?? "").replace(/^api:/, "") || "your organisation's app";
}

/** The check's line: waiting, Yes (in the app or through an API key), No, or no answer. */
function checkText(check: CallCheck | null, denied: boolean): string {
  if (denied) return T.denied;
  if (!check) return "";
  switch (check.status) {
    case "pending":
      return T.waiting;
    case "confirmed": {
      const at = time(check.answeredAt ?? new Date().toISOString());
      return check.answeredVia?.startsWith("api:") ? T.confirmedThrough(keyNameOf(check), at) : T.confirmed(at);
    }
    case "denied":
      return T.denied;
    case "expired":
      return T.expired;
  }
}

/**
 * Below the specified Generate Identity Code screen: the optional Customer reference with the call's
 * direction, and, while a call is active, who it is with, the customer's check live, End call and Not my call.
 */
export function CallPanel({ panel }: { panel: CallPanelState }) {
  if (!panel.available) return null;
  const { call, check, denied } = panel;
  const state = denied ? "denied" : check?.status;
  const canAsk = call && !denied && check?.status !== "pending";

  const startOutbound = (event: FormEvent) => {
    event.preventDefault();
    void panel.start("outbound");
  };

  return (
    <section className="card call-panel" aria-labelledby="call-panel-title">
      <h2 id="call-panel-title" className="call-panel__title">
        {T.title}
      </h2>
      {call ? (
        <>
          <p className="call-panel__who">
            {call.direction === "outbound" ? T.calling(call.customerRef) : T.calledUs(call.customerRef)}
          </p>
          {call.startedVia === "api" && <p className="muted">{T.startedThroughApi}</p>}
          <div className="call-panel__actions">
            {canAsk && (
              <button
                type="button"
                className="button button--primary"
                onClick={() => void panel.ask()}
                aria-disabled={panel.busy || undefined}
              >
                {T.ask}
              </button>
            )}
            <button
              type="button"
              className="button button--secondary"
              onClick={() => void panel.end()}
              aria-disabled={panel.busy || undefined}
            >
              {T.end}
            </button>
            {call.startedVia === "api" && (
              <button
                type="button"
                className="button call-panel__disown"
                onClick={() => void panel.disown()}
                aria-disabled={panel.busy || undefined}
              >
                {T.notMine}
              </button>
            )}
          </div>
        </>
      ) : (
        <form className="call-panel__start" onSubmit={startOutbound} noValidate>
          <div className="field">
            <label htmlFor="customer-ref" className="field__label">
              {T.customerRefLabel}
            </label>
            <input
              id="customer-ref"
              name="customer-ref"
              className="field__input"
              autoComplete="off"
              autoCapitalize="off"
              autoCorrect="off"
              spellCheck={false}
              maxLength={128}
              value={panel.customerRef}
              onChange={(event) => panel.setCustomerRef(event.target.value)}
              aria-describedby="customer-ref-hint"
            />
            <p id="customer-ref-hint" className="field__hint muted">
              {T.customerRefHint}
            </p>
          </div>
          <div className="call-panel__actions">
            <button type="submit" className="button button--secondary" aria-disabled={panel.busy || undefined}>
              {T.weCalled}
            </button>
            <button
              type="button"
              className="button button--secondary"
              onClick={() => void panel.start("inbound")}
              aria-disabled={panel.busy || undefined}
            >
              {T.theyCalled}
            </button>
          </div>
        </form>
      )}
      {panel.error && <Notice tone="error">{panel.error}</Notice>}
      {/* Its own live region: a screen reader hears the customer's answer the moment it comes. */}
      <p className="call-check" role="status" aria-live="polite" data-state={state}>
        {call ? checkText(check, denied) : (panel.notice ?? "")}
      </p>
      {call && panel.colleagues > 0 && <p className="call-panel__colleague">{T.colleague}</p>}
      {call && panel.liveLost && <p className="muted">{T.liveLost}</p>}
    </section>
  );
}
