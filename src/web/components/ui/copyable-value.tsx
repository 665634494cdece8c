import { useEffect, useRef, useState } from "react";
import { UI_TIMING } from "../../../shared/constants";
import { MESSAGES } from "../../../shared/messages";
import "./ui.css";

type CopyableValueProps = {
  /** shown before the value: "Access Code" */
  label: string;
  value: string;
};

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/** "Label: VALUE" with a Copy button that says "Copied!" for two seconds. */
export function CopyableValue({ label, value }: CopyableValueProps) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  async function copy() {
    const ok = await copyText(value);
    setState(ok ? "copied" : "failed");
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setState("idle"), UI_TIMING.copiedMs);
  }

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
        {state === "copied"
          ? `${label} copied.`
          : state === "failed"
            ? "Could not copy: select the text and copy it."
            : ""}
      </span>
    </div>
  );
}
