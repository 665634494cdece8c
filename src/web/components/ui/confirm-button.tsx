import { UI_TIMING } from "@shared/constants";
import { useEffect, useRef, useState } from "react";
import "./ui.css";

type ConfirmButtonProps = {
  /** the button's text: "Deactivate" */
  label: string;
  /** what the action is about, read by screen readers after the label: "Jane Doe" */
  subject: string;
  /** runs on the second press within the window */
  onConfirm(): void | Promise<void>;
  windowMs?: number;
};

/**
 * A destructive action that needs two presses: the first turns the button into a yellow
 * "Confirm?" for a few seconds, a second press within that time runs it, otherwise it reverts.
 * The button stays the same element throughout, so keyboard focus stays on it.
 */
export function ConfirmButton({
  label,
  subject,
  onConfirm,
  windowMs = UI_TIMING.deactivateConfirmMs,
}: ConfirmButtonProps) {
  const [armed, setArmed] = useState(false);
  const [busy, setBusy] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const live = useRef(true);

  useEffect(() => {
    live.current = true;
    return () => {
      live.current = false;
      clearTimeout(timer.current);
    };
  }, []);

  async function press() {
    if (busy) return;
    if (!armed) {
      setArmed(true);
      clearTimeout(timer.current);
      timer.current = setTimeout(() => setArmed(false), windowMs);
      return;
    }
    clearTimeout(timer.current);
    setArmed(false);
    setBusy(true);
    try {
      await onConfirm();
    } finally {
      if (live.current) setBusy(false);
    }
  }

  const seconds = Math.round(windowMs / 1000);
  return (
    <>
      <button
        type="button"
        className={armed ? "button confirm-button confirm-button--armed" : "button button--secondary confirm-button"}
        aria-disabled={busy || undefined}
        onClick={press}
      >
        {armed ? "Confirm?" : label}
        <span className="visually-hidden">{armed ? ` ${label.toLowerCase()} ${subject}` : ` ${subject}`}</span>
      </button>
      <span className="visually-hidden" role="status">
        {armed ? `Press again within ${seconds} seconds to ${label.toLowerCase()} ${subject}.` : ""}
      </span>
    </>
  );
}
