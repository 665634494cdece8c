import { MINIMUM_AGE } from "@shared/constants";
import { ModalDialog } from "@web/components/ui/modal-dialog";
import { usePublicConfig } from "@web/lib/public-config";
import { useId, useState } from "react";
import { PrivacyText, TermsText } from "./legal-texts";

type TermsConsentProps = {
  checked: boolean;
  onChange(checked: boolean): void;
  /** id of the error that describes the checkbox, when there is one */
  errorId?: string | undefined;
};

export const TERMS_LABEL = `I am ${MINIMUM_AGE} or over and agree to the Terms & Conditions and Privacy Policy`;

/** The terms checkbox of the sign-up forms, with buttons that open the terms and the policy in dialogs. */
export function TermsConsent({ checked, onChange, errorId }: TermsConsentProps) {
  const id = useId();
  const [open, setOpen] = useState<"terms" | "privacy" | null>(null);
  const supportEmail = usePublicConfig()?.supportEmail;
  return (
    <div className="terms">
      <div className="terms__check">
        <input
          id={id}
          type="checkbox"
          className="terms__box"
          checked={checked}
          required
          aria-invalid={errorId ? true : undefined}
          aria-describedby={[`${id}-read`, errorId].filter(Boolean).join(" ")}
          onChange={(event) => onChange(event.target.checked)}
        />
        <label htmlFor={id}>{TERMS_LABEL}</label>
      </div>
      <p id={`${id}-read`} className="terms__read">
        Read the{" "}
        <button type="button" className="link-button" aria-haspopup="dialog" onClick={() => setOpen("terms")}>
          Terms &amp; Conditions
        </button>{" "}
        and the{" "}
        <button type="button" className="link-button" aria-haspopup="dialog" onClick={() => setOpen("privacy")}>
          Privacy Policy
        </button>
        .
      </p>
      <ModalDialog
        open={open === "terms"}
        onClose={() => setOpen(null)}
        title="Terms & Conditions"
        doneLabel="Back to the form"
      >
        <TermsText />
      </ModalDialog>
      <ModalDialog
        open={open === "privacy"}
        onClose={() => setOpen(null)}
        title="Privacy Policy"
        doneLabel="Back to the form"
      >
        <PrivacyText supportEmail={supportEmail} />
      </ModalDialog>
    </div>
  );
}
