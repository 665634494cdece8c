import { CODES_TEXT } from "@shared/codes";
import { MESSAGES } from "@shared/messages";
import { useCopy } from "@web/lib/use-copy";
import { useId } from "react";
import "@web/components/ui/ui.css";
import "./codes.css";

type CopySnippetProps = { title: string; help: string; code: string };

/** A titled code block with a Copy button that says "Copied!" for two seconds. */
export function CopySnippet({ title, help, code }: CopySnippetProps) {
  const id = useId();
  const { state, copy } = useCopy(code);

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
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take focus to scroll by keyboard */}
      <pre className="snippet__code" tabIndex={0}>
        <code>{code}</code>
      </pre>
      <p className="visually-hidden" role="status">
        {state === "copied" ? `${title}: ${MESSAGES.copied}` : state === "failed" ? MESSAGES.copyFailed : ""}
      </p>
    </section>
  );
}
