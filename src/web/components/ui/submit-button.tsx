import type { ReactNode } from "react";

/** The form's main button; stays a real, labelled button while the request runs. */
export function SubmitButton({ busy, children }: { busy: boolean; children: ReactNode }) {
  return (
    <button
      type="submit"
      className="button button--primary button--block"
      aria-disabled={busy || undefined}
      data-busy={busy || undefined}
    >
      {children}
    </button>
  );
}
