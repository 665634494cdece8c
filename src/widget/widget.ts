/**
 * The embeddable verification widget, served as /widget.js (an IIFE, no framework).
 *
 *   <div id="callproof-widget"></div>
 *   <script src="https://callproof.example/widget.js" data-target="#callproof-widget" async></script>
 *
 * data-target: CSS selector of the element to mount in (if it is not on the page, nothing is shown);
 * without it the widget goes right after its script tag. It talks only to the origin it was loaded from, without cookies, and lives in a Shadow
 * DOM so the host page's styles and the widget's cannot touch each other.
 *
 * data-lang: the customer's language (en, fr, es, it, pt, cs); without it, the host page's <html lang>,
 * then the browser's languages, then English. English is built in; another language's texts are fetched
 * from the widget's own origin (/widget-<lang>.json) before it shows, and English is shown if that fails.
 */
import { widget as ENGLISH } from "@shared/i18n/en";
import { fillIn, type WidgetTexts } from "@shared/i18n/types";
import { DEFAULT_LANGUAGE, type Language, pickLanguage } from "@shared/languages";
import { REPORT_FIELD_MAX } from "@shared/reports";

/** The report form's fields, in order (the names POST /api/reports takes). */
const REPORT_FIELD_NAMES = ["callerNumber", "claimedName", "note"] as const;

type Answer = {
  verified?: boolean;
  message?: string;
  caller?: { fullName?: string; companyName?: string; website?: string };
};

const MARK = "data-callproof-widget";

const CSS = `
:host{all:initial;display:block;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a}
*{box-sizing:border-box}
.w{max-width:28rem;min-width:0;padding:16px;border:1px solid #c4c7cc;border-radius:10px;background:#fff}
.t{margin:0 0 8px;font-size:1.1em;font-weight:700}
label{display:block;font-weight:600}
.h{margin:2px 0 8px;color:#4a4f57;font-size:.9em}
.row{display:flex;flex-wrap:wrap;gap:8px}
input{flex:1 1 12rem;min-width:0;padding:10px 12px;font:inherit;color:#1a1a1a;background:#fff;border:1px solid #6b7079;border-radius:6px}
button{padding:10px 18px;font:inherit;font-weight:600;color:#fff;background:#0b57d0;border:0;border-radius:6px;cursor:pointer}
button:disabled{background:#4d5866;cursor:wait}
input:focus-visible,button:focus-visible,a:focus-visible{outline:3px solid #0b57d0;outline-offset:2px}
.r:empty{display:none}
.r{margin-top:12px;padding:12px;border-radius:6px;border:1px solid #c4c7cc;overflow-wrap:anywhere}
.ok{color:#0a5028;background:#eefaf1;border-color:#1e7b3c}
.no{color:#8a0018;background:#fff5f5;border-color:#b00020}
.r p{margin:0}
.r strong{display:block}
a{color:inherit}
.b2{margin-top:8px;color:#0b57d0;background:#fff;border:1px solid #0b57d0}
.f{margin-top:12px;display:grid;gap:6px}
.f input{flex:none;width:100%}
.row .b2{margin-top:0}
`;

/** POSTs JSON cross-origin without credentials (no cookies go or come back); the answer's JSON, or {}. */
async function post(url: string, body: object): Promise<{ response: Response; answer: Answer }> {
  const response = await fetch(url, {
    method: "POST",
    mode: "cors",
    credentials: "omit",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { response, answer: (await response.json().catch(() => ({}))) as Answer };
}

/** The script element this code runs from; a loader-injected tag is found by its src. */
function ownScript(): HTMLScriptElement | null {
  const current = document.currentScript as HTMLScriptElement | null;
  if (current?.src) return current;
  const all = document.querySelectorAll<HTMLScriptElement>("script[src]");
  for (let i = all.length - 1; i >= 0; i--) {
    const s = all[i] as HTMLScriptElement;
    if (/\/widget\.js(?:[?#]|$)/.test(s.src)) return s;
  }
  return null;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, text?: string) {
  const e = document.createElement(tag);
  for (const k in attrs) e.setAttribute(k, attrs[k] as string);
  if (text) e.textContent = text;
  return e;
}

/** The host (domain) of the caller's proven website, or "" (none, or not a URL). */
function domainOf(website: string | undefined): string {
  try {
    return website ? new URL(website).hostname : "";
  } catch {
    return "";
  }
}

function mount(host: HTMLElement, api: string, language: Language, T: WidgetTexts) {
  const root = host.attachShadow({ mode: "open" });
  const style = el("style", {}, CSS);
  const box = el("div", { class: "w", lang: language });
  const form = el("form", { "aria-labelledby": "t", novalidate: "" });
  const input = el("input", {
    id: "i",
    type: "text",
    autocomplete: "off",
    autocapitalize: "none",
    spellcheck: "false",
    maxlength: "200",
    "aria-describedby": "h",
  });
  const button = el("button", { type: "submit" }, T.button);
  const row = el("div", { class: "row" });
  row.append(input, button);
  form.append(
    el("p", { class: "t", id: "t" }, T.title),
    el("label", { for: "i" }, T.label),
    el("p", { class: "h", id: "h" }, T.hint),
    row,
  );
  const result = el("div", { class: "r", role: "status", "aria-live": "polite", "aria-atomic": "true" });
  // Below the result (not inside its live region): the report form after a failed look-up.
  const extra = el("div");
  box.append(form, result, extra);
  root.append(style, box);

  const show = (kind: "ok" | "no" | "", lines: string[], website?: string) => {
    result.className = `r ${kind}`;
    result.textContent = "";
    extra.textContent = "";
    lines.forEach((line, i) => {
      result.append(el(i === 0 && kind === "ok" ? "strong" : "p", {}, line));
    });
    if (website && /^https?:\/\//i.test(website)) {
      const p = el("p");
      p.append(el("a", { href: website, target: "_blank", rel: "noopener noreferrer" }, website));
      result.append(p);
    }
  };

  /** After a failed look-up: "Report this call", a short form sent to /api/reports without credentials. */
  const offerReport = () => {
    const open = el("button", { type: "button", class: "b2" }, T.reportButton);
    extra.append(open);
    open.addEventListener("click", () => {
      const report = el("form", { class: "f", "aria-label": T.reportButton, novalidate: "" });
      const fields = REPORT_FIELD_NAMES.map((name) => {
        const field = el("input", { id: `r-${name}`, name, type: "text", maxlength: String(REPORT_FIELD_MAX) });
        report.append(el("label", { for: `r-${name}` }, T[name]), field);
        return field;
      });
      const note = el("p", { class: "r", role: "status", "aria-live": "polite" });
      const send = el("button", { type: "submit" }, T.send);
      const cancel = el("button", { type: "button", class: "b2" }, T.cancel);
      const actions = el("div", { class: "row" });
      actions.append(send, cancel);
      report.prepend(el("p", { class: "h" }, T.reportHint));
      report.append(actions, note);
      open.replaceWith(report);
      fields[0]?.focus();
      cancel.addEventListener("click", () => {
        report.remove();
        input.focus();
      });
      report.addEventListener("submit", async (e) => {
        e.preventDefault();
        const body: Record<string, string> = { language };
        for (const f of fields) if (f.value.trim()) body[f.name] = f.value.trim().replace(/\s+/g, " ");
        const say = (kind: string, text: string) => {
          note.className = `r ${kind}`;
          note.textContent = text;
        };
        if (Object.keys(body).length === 1) return say("no", T.empty);
        send.disabled = true;
        say("", T.sending);
        try {
          const { response, answer } = await post(`${api}/api/reports`, body);
          if (response.ok) {
            const done = el("p", { class: "r ok", role: "status" }, answer.message || T.sent);
            report.replaceWith(done);
            return;
          }
          say("no", response.status === 429 ? T.reportsTooMany : answer.message || T.failed);
        } catch {
          say("no", T.failed);
        }
        send.disabled = false;
      });
    });
  };

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const words = input.value.trim();
    if (words.split(/[\s/,.-]+/).filter(Boolean).length !== 3) {
      show("no", [T.threeWords]);
      input.focus();
      return;
    }
    button.disabled = true;
    show("", [T.checking]);
    try {
      const { response, answer } = await post(`${api}/api/verify`, { words, language });
      if (response.status === 429) show("no", [T.tooMany]);
      else if (response.ok && answer.verified === true && answer.caller) {
        const { fullName = "", companyName = "", website } = answer.caller;
        // The organisation's proven domain (N11): on the product's own site, where anybody's code verifies,
        // say plainly which domain vouches, so that a customer sent there by a scammer can compare.
        const domain = domainOf(website);
        const line = domain
          ? companyName
            ? T.verifiedCompanyDomain
            : T.verifiedDomain
          : companyName
            ? T.verifiedCompany
            : T.verified;
        const lines = [fillIn(line, { name: fullName, company: companyName, domain })];
        if (location.origin === api) lines.push(domain ? fillIn(T.vouchedBy, { domain }) : T.noDomain);
        show("ok", lines, website);
      } else if (response.ok) {
        show("no", [answer.message || T.notVerified]);
        offerReport();
      } else show("no", [answer.message || T.unavailable]);
    } catch {
      show("no", [T.unavailable]);
    } finally {
      button.disabled = false;
    }
  });
}

/** The element data-target names, or null (none, not there, or not a valid selector). */
function targetOf(script: HTMLScriptElement): Element | null {
  const selector = script.getAttribute("data-target");
  try {
    return selector ? document.querySelector(selector) : null;
  } catch {
    return null;
  }
}

/** The customer's language: data-lang, else the page's <html lang>, else the browser's languages, else English. */
function languageOf(script: HTMLScriptElement): Language {
  return (
    pickLanguage([script.getAttribute("data-lang"), document.documentElement.lang, ...(navigator.languages || [])]) ||
    DEFAULT_LANGUAGE
  );
}

/** The widget's texts in `language`: English at once; another fetched from the widget's origin (English if that fails). */
async function textsIn(api: string, language: Language): Promise<WidgetTexts> {
  if (language === DEFAULT_LANGUAGE) return ENGLISH;
  try {
    const response = await fetch(`${api}/widget-${language}.json`, { mode: "cors", credentials: "omit" });
    if (response.ok) return { ...ENGLISH, ...((await response.json()) as Partial<WidgetTexts>) };
  } catch {}
  return ENGLISH;
}

function start(script: HTMLScriptElement) {
  const api = new URL(script.src, document.baseURI).origin;
  const language = languageOf(script);
  // A loader that removed its tag before it ran (a page changing the widget's language) wants nothing
  // from it: a removed async script still runs, and would take the place of the one that replaced it.
  if (!script.isConnected) return;
  const place = targetOf(script);
  // A named target that is not on the page (any more): mount nowhere rather than somewhere unexpected.
  if (script.hasAttribute("data-target") && !place) return;
  if (place?.querySelector(`[${MARK}]`)) return; // already mounted there (the script ran twice)
  const host = el("div", { [MARK]: "" });
  if (place) place.appendChild(host);
  else if (script.parentNode && script.parentNode !== document.head)
    script.parentNode.insertBefore(host, script.nextSibling);
  else document.body.appendChild(host);
  textsIn(api, language).then((texts) => mount(host, api, texts === ENGLISH ? DEFAULT_LANGUAGE : language, texts));
}

const script = ownScript();
if (script) {
  // An async script may run before the page has parsed its target: wait for it then.
  if (script.hasAttribute("data-target") && document.readyState === "loading" && !targetOf(script)) {
    document.addEventListener("DOMContentLoaded", () => start(script));
  } else start(script);
}
