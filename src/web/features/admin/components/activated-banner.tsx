import { MESSAGES } from "@shared/messages";

/**
 * A check mark that draws itself, with the activation message (no motion when reduced motion is asked for).
 * Render it inside a live region that already exists, so the message is announced.
 */
export function ActivatedBanner() {
  return (
    <div className="activated-banner">
      <svg className="activated-banner__mark" viewBox="0 0 52 52" aria-hidden="true" focusable="false">
        <circle className="activated-banner__circle" cx="26" cy="26" r="24" fill="none" />
        <path className="activated-banner__check" fill="none" d="M14 27 l8 8 l16 -17" />
      </svg>
      <p>{MESSAGES.employerActivated}</p>
    </div>
  );
}
