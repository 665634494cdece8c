import { useState } from "react";

/**
 * A table's row buttons, one request at a time: `busyId` is the row whose request runs, and a failure
 * is an alert reading `failurePrefix` + the reason (the server's message, else the error's text).
 */
export function useRowAction(failurePrefix: string) {
  const [busyId, setBusyId] = useState<number | null>(null);

  async function run(id: number, action: () => Promise<unknown>) {
    if (busyId !== null) return;
    setBusyId(id);
    try {
      await action();
    } catch (error) {
      alert(failurePrefix + (error instanceof Error ? error.message : String(error)));
    } finally {
      setBusyId(null);
    }
  }

  return { busyId, run };
}

type RowActionButtonProps = {
  /** the button's text: "Activate" */
  label: string;
  /** whom it acts on, read by screen readers after the label */
  subject: string;
  variant: "primary" | "secondary";
  busy: boolean;
  onClick(): void;
};

/** A row's action button; stays a real, labelled button while its request runs. */
export function RowActionButton({ label, subject, variant, busy, onClick }: RowActionButtonProps) {
  return (
    <button
      type="button"
      className={`button button--${variant}`}
      aria-disabled={busy || undefined}
      data-busy={busy || undefined}
      onClick={onClick}
    >
      {label}
      <span className="visually-hidden"> {subject}</span>
    </button>
  );
}
