import { useEffect, useId, useRef, useState } from "react";
import { CODES_TEXT } from "../../../../shared/codes";
import { UI_TIMING } from "../../../../shared/constants";
import { MESSAGES } from "../../../../shared/messages";
import "../../../components/ui/ui.css";
import "./codes.css";

/** Copies with the Clipboard API, else through a selected text area (older browsers, non-secure origins). */
async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    try {
      return document.execCommand("copy");
    } catch {
      return false;
    } finally {
      area.remove();
    }
  }
}

type CopySnippetProps = { title: string; help: string; code: string };

/** A titled code block with a Copy button that says "Copied!" for two seconds. */
export function CopySnippet({ title, help, code }: CopySnippetProps) {
  const id = useId();
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  async function copy() {
    const ok = await copyText(code);
    setState(ok ? "copied" : "failed");
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setState("idle"), UI_TIMING.copiedMs);
  }

  return (
    <section className="snippet card" aria-labelledby={`${id}-title`}>
      <div className="snippet__header">
        <h2 id={`${id}-title`} className="snippet__title">
          {title}
        </h2>
        <button type="button" className="button button--secondary button--small" onClick={copy}>
          {state === "copied" ? MESSAGES.copied : CODES_TEXT.copyButton}
          <span className="visually-hidden"> {title.toLowerCase()}</span>
        </button>
      </div>
      <p className="muted">{help}</p>
      <pre className="snippet__code">
        <code>{code}</code>
      </pre>
      <p className="visually-hidden" role="status">
        {state === "copied" ? `${title}: ${MESSAGES.copied}` : state === "failed" ? CODES_TEXT.copyFailed : ""}
      </p>
    </section>
  );
}
