import { type KeyboardEvent, type ReactNode, useEffect, useId, useRef } from "react";
import "./ui.css";

type ModalDialogProps = {
  open: boolean;
  /** called whenever the dialog closes: its Close button, Escape, or the parent setting open to false */
  onClose(): void;
  title: string;
  /** text of the button at the end of the dialog that closes it */
  doneLabel?: string;
  children: ReactNode;
};

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** Tab and Shift+Tab wrap around inside the dialog instead of leaving for the browser's own controls. */
function trapTab(event: KeyboardEvent<HTMLDialogElement>) {
  if (event.key !== "Tab") return;
  const focusable = [...event.currentTarget.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
    (el) => el.offsetParent !== null || el === document.activeElement,
  );
  const first = focusable[0];
  const last = focusable[focusable.length - 1];
  if (!first || !last) return;
  const active = document.activeElement;
  const inside = active instanceof HTMLElement && focusable.includes(active);
  if (event.shiftKey && (active === first || !inside)) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && (active === last || !inside)) {
    event.preventDefault();
    first.focus();
  }
}

/**
 * A modal dialog on the native <dialog> element opened with showModal(): the rest of the page
 * is inert and Tab wraps around inside, Escape closes it, it is labelled by its heading, and focus goes
 * back to whatever opened it.
 */
export function ModalDialog({ open, onClose, title, doneLabel = "Close", children }: ModalDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  const titleId = useId();
  const onCloseRef = useRef(onClose);
  onCloseRef.current = onClose;

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) {
      opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      element.showModal();
      element.scrollTop = 0;
      // Start reading at the heading, so a screen reader announces the title first.
      heading.current?.focus();
    } else if (!open && element.open) {
      element.close();
    }
  }, [open]);

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    const closed = () => {
      const target = opener.current;
      opener.current = null;
      if (target?.isConnected) target.focus();
      onCloseRef.current();
    };
    element.addEventListener("close", closed);
    return () => element.removeEventListener("close", closed);
  }, []);

  // If the page unmounts the dialog while it is open, leave no modal state behind.
  useEffect(() => {
    const element = dialog.current;
    return () => {
      if (element?.open) element.close();
    };
  }, []);

  return (
    <dialog ref={dialog} className="modal" aria-labelledby={titleId} aria-modal="true" onKeyDown={trapTab}>
      <div className="modal__header">
        <h2 id={titleId} ref={heading} tabIndex={-1} className="modal__title">
          {title}
        </h2>
        <button type="button" className="button button--secondary modal__close" onClick={() => dialog.current?.close()}>
          Close
        </button>
      </div>
      {/* Focusable, so that keyboard users can scroll a long text */}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take focus to scroll by keyboard */}
      <div className="modal__body" tabIndex={0}>
        {children}
      </div>
      <div className="modal__footer">
        <button type="button" className="button button--primary" onClick={() => dialog.current?.close()}>
          {doneLabel}
        </button>
      </div>
    </dialog>
  );
}
