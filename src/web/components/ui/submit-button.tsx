import type { ReactNode } from "react";

type SubmitButtonProps = {
  busy: boolean;
  /** the button's classes: a full-width primary button unless given (an inline one beside a field, a danger one) */
  className?: string;
  children: ReactNode;
};

/** The form's main button; stays a real, labelled button while the request runs. */
export function SubmitButton({
  busy,
  className = "button button--primary button--block",
  children,
}: SubmitButtonProps) {
  return (
    <button type="submit" className={className} aria-disabled={busy || undefined} data-busy={busy || undefined}>
      {children}
    </button>
  );
}
