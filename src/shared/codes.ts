/**
 * Identity codes and the verification widget: answer types, texts and the widget loader.
 * Shared by the server, the web app and the widget. Keep this module free of zod and other
 * libraries: the widget (5 KB gzip budget) imports it.
 */
import type { Language } from "./languages";

/** `POST /api/generate-words`: `language` is the list the words come from (en, fr, es, it, pt, cs). */
export type GeneratedWords = { id: number; words: string[]; expiresAt: string; language: Language };

/** `GET /api/codes/:id` and the data of its events: `site` is the host it was verified on, or null. */
export type CodeStatus = {
  id: number;
  status: "live" | "verified" | "expired";
  expiresAt: string;
  verifiedAt: string | null;
  site: string | null;
};

/** `GET /api/client-info` (and the caller named by a successful verify) */
export type ClientInfo = { fullName: string; companyName: string; website: string };

/** `POST /api/verify` */
export type VerifyAnswer = { verified: true; caller: ClientInfo } | { verified: false; message: string };

/** What `POST /api/verify` accepts in `words`: longer input is refused 400 before any look-up. */
export const VERIFY_WORDS_MAX_LENGTH = 200;

/**
 * What a look-up can answer, written once: the server sends these, and the widget shows the same words
 * when it has no answer to show (defined here, not in MESSAGES, because the widget carries this module).
 */
const NOT_VERIFIED =
  "This code is not valid. The caller may not be who they claim to be: do not share personal details, and call the organisation back on its official number.";
const TOO_MANY_LOOKUPS = "Too many look-ups from your network. Please try again later.";
const VERIFY_UNAVAILABLE = "Verification is unavailable right now. Please try again in a moment.";
// (plain constants, so that the widget's build can drop CODES_TEXT, which it does not use)
export const LOOKUP_TEXT = {
  /** the spec's text for a code that does not verify (MESSAGES.codeNotVerified) */
  notVerified: NOT_VERIFIED,
  tooMany: TOO_MANY_LOOKUPS,
  unavailable: VERIFY_UNAVAILABLE,
} as const;

/** Texts of this feature that are not in the spec (the spec's own are in MESSAGES). */
export const CODES_TEXT = {
  tooManyLookups: TOO_MANY_LOOKUPS,
  verifyUnavailable: VERIFY_UNAVAILABLE,
  generateUnavailable: "Could not create a code right now. Please try again.",
  wordsRequired: "Enter the three words the caller gave you.",
  wordsTooLong: `The words must be at most ${VERIFY_WORDS_MAX_LENGTH} characters.`,
  codeNotFound: "No such code.",
  tooManyStreams: "Too many open code status streams. Close a tab and try again.",
  unknownLanguage: "The language must be one of en, fr, es, it, pt, cs.",

  // /dashboard
  dashboardTitle: "Generate Identity Code",
  generateButton: "Generate Identity Code",
  codeLabel: "Your identity code",
  expiresIn: (seconds: number) => `Expires in: ${seconds} seconds`,
  codeExpired: "The code has expired. Generate a new one when you need it.",
  waitingForCustomer: "Waiting for the customer…",
  verifiedByCustomer: (time: string, site: string | null) =>
    site ? `Verified by the customer at ${time} on ${site}` : `Verified by the customer at ${time}`,
  expiredNotVerified: "Expired — not verified",
  shareHint:
    "Read these three words to the person you are calling. They can check them on your organisation's website.",

  // /download
  downloadTitle: "Add the widget",
  plainSnippetTitle: "Plain snippet",
  plainSnippetHelp: "Paste this where the widget should appear on your website.",
  loaderSnippetTitle: "Recommended: loader with retries",
  loaderSnippetHelp: "Loads the widget, retrying if the network fails, and shows a message if it cannot load.",
  copyButton: "Copy",
  domainLockNote:
    "The widget only verifies callers from your organisation when it runs on your website (your e-mail domain, your website's host, or their subdomains, over https).",

  languageNote:
    "The widget speaks the customer's language (English, French, Spanish, Italian, Portuguese or Czech): the one your page declares in <html lang>, else the browser's. To choose one, add data-lang=\"fr\" (for example) to the script tag, or set lang in the loader.",

  // /in-a-call
  inACallTitle: "In a call?",
  /** /dashboard: the select of the language the code's words are drawn in */
  customerLanguage: "Customer's language",
} as const;

/** Texts of the embeddable widget. */
export const WIDGET_TEXT = {
  title: "Verify a caller",
  label: "The caller's three words",
  hint: "For example: apple / river / stone",
  button: "Verify",
  checking: "Checking...",
  verified: (name: string, company: string) => (company ? `Verified: ${name} from ${company}` : `Verified: ${name}`),
  notVerified: NOT_VERIFIED,
  tooMany: TOO_MANY_LOOKUPS,
  threeWords: "Enter exactly three words.",
  unavailable: VERIFY_UNAVAILABLE,
} as const;

/** Where the widget mounts when its script tag names no target. */
export const WIDGET_DEFAULT_TARGET_ID = "callproof-widget";

export type WidgetLoaderOptions = {
  /** absolute URL of widget.js */
  src: string;
  /** CSS selector of the element the widget mounts in */
  target: string;
  tries: number;
  delayMs: number;
  failureText: string;
  /** the customer's language, given to the widget as data-lang (it follows the page's otherwise) */
  lang?: string;
};

/**
 * Loads widget.js, retrying up to `tries` times `delayMs` apart, then shows `failureText` in the
 * target; the /in-a-call page uses it, and `loaderSnippet` is its hand-written twin for other sites.
 * Returns a function that stops pending retries.
 */
export function loadCallProofWidget(o: WidgetLoaderOptions): () => void {
  let tries = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  let current: HTMLScriptElement | undefined;
  function attempt() {
    tries++;
    const s = document.createElement("script");
    s.src = o.src;
    s.async = true;
    s.setAttribute("data-target", o.target);
    if (o.lang) s.setAttribute("data-lang", o.lang);
    s.onerror = () => {
      s.remove();
      if (stopped) return;
      if (tries < o.tries) {
        timer = setTimeout(attempt, o.delayMs);
        return;
      }
      const box = document.querySelector(o.target);
      if (!box) return;
      const p = document.createElement("p");
      p.setAttribute("role", "alert");
      p.textContent = o.failureText;
      p.style.cssText = "padding:12px;border:1px solid #b00020;border-radius:6px;color:#8a0018;background:#fff5f5";
      box.appendChild(p);
    };
    current = s;
    document.head.appendChild(s);
  }
  attempt();
  return () => {
    stopped = true;
    clearTimeout(timer);
    if (current) current.remove();
  };
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}

/** The plain snippet of /download: a mount point and the script tag. */
export function plainSnippet(publicUrl: string): string {
  const src = escapeAttribute(`${publicUrl.replace(/\/+$/, "")}/widget.js`);
  return [
    `<div id="${WIDGET_DEFAULT_TARGET_ID}"></div>`,
    `<script src="${src}" data-target="#${WIDGET_DEFAULT_TARGET_ID}" async></script>`,
  ].join("\n");
}

/**
 * A value as a JavaScript literal that cannot close the script element it sits in, in plain ASCII (so
 * that accents survive a page served in another character set).
 */
const jsLiteral = (value: string | number | Record<string, string>) =>
  JSON.stringify(value).replace(/[<\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

/**
 * The recommended snippet of /download: a mount point and the loader with retries, as inline code.
 * Written out by hand (not `loadCallProofWidget.toString()`, which the web build minifies) so that the
 * people pasting it can read what it does; it behaves as `loadCallProofWidget`, and the browser tests
 * run this exact text on a second origin. `failureText`: the message when the widget cannot load, one
 * per language (a single text is English); the snippet shows it in the customer's language, chosen as
 * the widget chooses (`lang`, else the page's <html lang>, else the browser's languages, else English).
 */
export function loaderSnippet(
  publicUrl: string,
  tries: number,
  delayMs: number,
  failureText: string | Partial<Record<Language, string>>,
): string {
  const src = `${publicUrl.replace(/\/+$/, "")}/widget.js`;
  const failureTexts = typeof failureText === "string" ? { en: failureText } : failureText;
  return `<div id="${WIDGET_DEFAULT_TARGET_ID}"></div>
<script>
(function () {
  var src = ${jsLiteral(src)};
  var target = ${jsLiteral(`#${WIDGET_DEFAULT_TARGET_ID}`)};
  var tries = ${jsLiteral(tries)}, delayMs = ${jsLiteral(delayMs)}, attempt = 0;
  // The customer's language (en, fr, es, it, pt, cs); empty: the page's <html lang>, then the browser's.
  var lang = "";
  var failureTexts = ${jsLiteral(failureTexts as Record<string, string>)};
  function language() {
    var tags = [lang, document.documentElement.lang].concat(navigator.languages || []);
    for (var i = 0; i < tags.length; i++) {
      var primary = String(tags[i] || "").toLowerCase().split(/[-_]/)[0];
      if (Object.prototype.hasOwnProperty.call(failureTexts, primary)) return primary;
    }
    return "en";
  }
  function load() {
    attempt++;
    var script = document.createElement("script");
    script.src = src;
    script.async = true;
    script.setAttribute("data-target", target);
    if (lang) script.setAttribute("data-lang", lang);
    script.onerror = function () {
      script.remove();
      if (attempt < tries) return void setTimeout(load, delayMs);
      var box = document.querySelector(target);
      if (!box) return;
      var message = document.createElement("p");
      message.setAttribute("role", "alert");
      message.textContent = failureTexts[language()] || failureTexts.en;
      message.style.cssText = "padding:12px;border:1px solid #b00020;border-radius:6px;color:#8a0018;background:#fff5f5";
      box.appendChild(message);
    };
    document.head.appendChild(script);
  }
  load();
})();
</script>`;
}
