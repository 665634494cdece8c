import { MESSAGES } from "@shared/messages";
import { useCopy } from "@web/lib/use-copy";
import "./ui.css";

type CopyableValueProps = {
  /** shown before the value: "Access Code" */
  label: string;
  value: string;
};

/** "Label: VALUE" with a Copy button that says "Copied!" for two seconds. */
export function CopyableValue({ label, value }: CopyableValueProps) {
  const { state, copy } = useCopy(value);

  return (
    <div className="copyable">
      <p className="copyable__text">
        {label}: <code className="copyable__value">{value}</code>
      </p>
      <button type="button" className="button button--secondary copyable__button" onClick={copy}>
        {state === "copied" ? MESSAGES.copied : "Copy"}
        <span className="visually-hidden"> {label.toLowerCase()}</span>
      </button>
      <span className="visually-hidden" role="status">
        {state === "copied" ? `${label} copied.` : state === "failed" ? MESSAGES.copyFailed : ""}
      </span>
    </div>
  );
}
