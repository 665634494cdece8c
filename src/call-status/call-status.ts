/**
 * The call-status component (CONTRACT.md, "The call-status component"), served as /call-status.<hash>.js
 * (with its SRI hash) and /call-status.js: an IIFE, no framework, for the organisation's signed-in pages.
 *
 *   <script src="PUBLIC_URL/call-status.<hash>.js" integrity="sha384-…" crossorigin="anonymous"
 *     referrerpolicy="no-referrer" data-token="cps_…" data-lang="fr" async></script>
 *
 * data-token: a status token minted by the organisation's backend; or data-token-url: a URL of the page's
 * own origin answering `{token}` from the customer's cookies (asked again when a token expires), so that
 * the token is never written into the page. data-lang, else <html lang>, else the browser's languages.
 * data-target (optional): CSS selector of the element to mount in; else right after the script tag.
 *
 * It talks only to the origin it was loaded from, sends the token only in `Authorization: Bearer` (the
 * stream is a fetch, never EventSource), builds its DOM with createElement/textContent in a Shadow DOM,
 * and its one style element carries its script tag's nonce (CSP without 'unsafe-inline', Trusted Types).
 *
 * Fail-safe: it shows a call only while its connection is open and the server confirmed the state within
 * the last 30 s; while it cannot tell it says "Checking…", and after 10 s, or at once on 401/403 (expired,
 * revoked, deactivated), that nobody phoning in the organisation's name should be trusted.
 */

import type { ComponentState } from "@shared/call-status-protocol";
import { type CallStatusTexts, ENGLISH_CALL_STATUS_TEXTS as ENGLISH } from "@shared/call-status-texts";
import { DEFAULT_LANGUAGE, type Language, pickLanguage } from "@shared/languages";

/** Set by scripts/build-call-status.ts: each other language's texts file and its SRI hash. */
declare const __CALL_STATUS_TEXT_FILES__: Record<string, [string, string]>;

/** The server's protocol (docs/calls.md, "The component's protocol"). */
const STREAM = "/api/call-status/stream";
const ANSWER = "/api/call-status/checks/";
const REPORT = "/api/call-status/report";

/** How long a state confirmed by the server may be shown; how long "Checking…" lasts; the 503 poll; the answer delay. */
const FRESH_MS = 30_000;
const CHECKING_MS = 10_000;
const POLL_MS = 15_000;
const ANSWER_DELAY_MS = 1_500;

type State = ComponentState;
type Check = NonNullable<State["check"]>;

const MARK = "data-callproof-call-status";

const CSS = `
:host{all:initial;display:block;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a}
*{box-sizing:border-box}
.w{max-width:36rem;min-width:0;padding:16px;border:2px solid #6b7079;border-radius:10px;background:#f6f7f9;overflow-wrap:anywhere}
.ok{color:#0a5028;background:#eefaf1;border-color:#1e7b3c}
.q{background:#f0f5ff;border-color:#0b57d0}
.no{color:#8a0018;background:#fff5f5;border-color:#b00020}
h2{margin:0;font-size:1.1em;font-weight:700}
h2:focus{outline:none}
p{margin:8px 0 0}
.a{display:grid;grid-template-columns:repeat(auto-fit,minmax(11rem,1fr));grid-auto-rows:1fr;gap:8px;margin-top:12px}
button{min-height:44px;padding:10px 14px;font:inherit;font-weight:600;color:#0b57d0;background:#fff;border:2px solid #0b57d0;border-radius:6px;cursor:pointer}
button:disabled{color:#4d5866;border-color:#8a9099;cursor:default}
.s{color:#fff;background:#0b57d0}
input{width:100%;padding:10px 12px;font:inherit;color:#1a1a1a;background:#fff;border:1px solid #6b7079;border-radius:6px}
label{display:block;margin-top:8px;font-weight:600}
button:focus-visible,input:focus-visible{outline:3px solid #0b57d0;outline-offset:2px}
.r{margin-top:12px}
.r:empty{display:none}
`;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, text?: string) {
  const e = document.createElement(tag);
  for (const k in attrs) e.setAttribute(k, attrs[k] as string);
  if (text) e.textContent = text;
  return e;
}

/** "{name} is here" + {name: "Ann"} → "Ann is here" (values inserted as they are). */
const fill = (text: string, values: Record<string, string | number>) =>
  text.replace(/\{(\w+)\}/g, (_, k: string) => String(values[k] ?? ""));

/** The first word of a name. */
const first = (name: string | undefined) => (name || "").trim().split(/\s+/)[0] || "";
const nameOf = (p: { firstName?: string }) => first(p.firstName);

/** The script element this code runs from; a loader-injected tag is found by its src. */
function ownScript(): HTMLScriptElement | null {
  const current = document.currentScript as HTMLScriptElement | null;
  if (current?.src) return current;
  const all = document.querySelectorAll<HTMLScriptElement>("script[src]");
  for (let i = all.length - 1; i >= 0; i--) {
    const s = all[i] as HTMLScriptElement;
    if (/\/call-status(\.[\w-]+)?\.js(?:[?#]|$)/.test(s.src)) return s;
  }
  return null;
}

function start(script: HTMLScriptElement) {
  const api = new URL(script.src, document.baseURI).origin;
  const language: Language =
    pickLanguage([script.getAttribute("data-lang"), document.documentElement.lang, ...(navigator.languages || [])]) ||
    DEFAULT_LANGUAGE;
  const selector = script.getAttribute("data-target");
  let place: Element | null = null;
  try {
    place = selector ? document.querySelector(selector) : null;
  } catch {}
  if (selector && !place) return;
  if ((place || document).querySelector(`[${MARK}]`)) return; // already mounted (the script ran twice)
  let token = script.getAttribute("data-token") || "";
  const tokenUrl = script.getAttribute("data-token-url");

  const host = el("div", { [MARK]: "" });
  if (place) place.appendChild(host);
  else if (script.parentNode && script.parentNode !== document.head)
    script.parentNode.insertBefore(host, script.nextSibling);
  else document.body.appendChild(host);
  const root = host.attachShadow({ mode: "open" });
  const style = el("style", {}, CSS);
  if (script.nonce) style.nonce = script.nonce;
  const box = el("section", { class: "w", lang: language });
  const head = el("h2", { tabindex: "-1" });
  const live = el("div", { role: "status", "aria-live": "polite", "aria-atomic": "true" });
  const lines = el("div");
  const actions = el("div");
  const extra = el("div");
  live.append(head, lines);
  box.append(live, actions, extra);
  root.append(style, box);

  let T: CallStatusTexts = ENGLISH;
  let ready = false;
  let state: State | null = null;
  let confirmedAt = 0;
  let open = false;
  let dead = false;
  let since = Date.now();
  let company = "";
  /** The customer's answer here: to which check, what, and the calls then (it is thanked for until they change). */
  let answered: { check: Check; answer: string; calls: string } | null = null;
  let answerFailed = "";
  let intersecting = typeof IntersectionObserver !== "function";
  let shownKey = "";
  let reportKey = "";
  let reportState: "" | "form" | "sent" | "failed" = "";
  let controller: AbortController | null = null;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let warnTimer: ReturnType<typeof setTimeout> | undefined;
  let failures = 0;
  let renewedToken = false;

  const time = (iso: string, options: Intl.DateTimeFormatOptions) => {
    const d = new Date(iso);
    return Number.isNaN(d.getTime()) ? "" : d.toLocaleString(language, { hourCycle: "h23", ...options });
  };
  const list = (names: string[]) => {
    try {
      return new Intl.ListFormat(language, { type: "conjunction" }).format(names);
    } catch {
      return names.join(", ");
    }
  };

  /** What to show now: [class, heading, lines, question (check id and direction) or "", report offered]. */
  const view = (): [string, string, string[], Check | null, boolean] => {
    const now = Date.now();
    const unavailable: [string, string, string[], null, false] = [
      "no",
      company ? fill(T.unavailable, { company }) : T.unavailableNoCompany,
      [],
      null,
      false,
    ];
    if (dead) return unavailable;
    if (!open || !state || now - confirmedAt > FRESH_MS) {
      if (!since) since = now;
      if (now - since >= CHECKING_MS) return unavailable;
      clearTimeout(warnTimer); // the warning exactly 10 s after it could last tell
      warnTimer = setTimeout(render, since + CHECKING_MS - now);
      return ["", T.checking, [], null, false];
    }
    since = 0;
    const s = state;
    const calls = (s.calling || []).filter((c) => nameOf(c));
    const pending = s.check?.id ? s.check : null;
    // Thanks for an answer given here, until another check comes or the calls change.
    if (answered && (pending ? pending.id !== answered.check.id : JSON.stringify(calls) !== answered.calls))
      answered = null;
    const check = answered?.check || pending;
    const inbound = check?.direction === "inbound";
    const say = { company, name: check ? nameOf(check) : "" };
    if (answered?.answer === "confirmed") return ["ok", fill(T.saidYes, say), [], null, false];
    if (answered) return ["no", fill(T.saidNo, say), [], null, true];
    if (check && s.canAnswer && intersecting && document.visibilityState === "visible" && window.top === window.self) {
      return [
        "q",
        fill(inbound ? T.askInbound : T.askOutbound, say),
        [fill(inbound ? T.inboundHint : T.outboundHint, say), answerFailed],
        check,
        false,
      ];
    }
    if (calls.length === 1) {
      const c = calls[0] as State["calling"][number];
      const n = nameOf(c);
      return [
        "ok",
        fill(T.calling, { company, name: n, time: time(c.startedAt, { hour: "2-digit", minute: "2-digit" }) }),
        [fill(T.callingHint, { name: n })],
        null,
        false,
      ];
    }
    if (calls.length > 1)
      return ["ok", fill(T.several, { company, n: calls.length, names: list(calls.map(nameOf)) }), [], null, false];
    return [
      "",
      fill(T.notCalling, say),
      [
        fill(T.notCallingHint, say),
        s.lastCallAt
          ? fill(T.lastCall, { date: time(s.lastCallAt, { dateStyle: "long", timeStyle: "short" }) })
          : T.noRecentCall,
      ],
      null,
      true,
    ];
  };

  const render = () => {
    if (!ready) return;
    const [kind, heading, texts, check, report] = view();
    const key = JSON.stringify([kind, heading, texts, check?.id]);
    const focused = root.activeElement;
    if (key !== shownKey) {
      shownKey = key;
      box.className = `w ${kind}`;
      head.textContent = heading;
      lines.textContent = "";
      for (const t of texts) if (t) lines.append(el("p", {}, t));
      actions.textContent = "";
      if (check) {
        // Equally prominent, neither preselected, enabled 1.5 s after the question appears.
        const inbound = check.direction === "inbound";
        const say = { company, name: nameOf(check) };
        const row = el("div", { class: "a" });
        for (const [answer, text] of [
          ["denied", inbound ? T.inboundNo : T.outboundNo],
          ["confirmed", inbound ? T.inboundYes : T.outboundYes],
        ] as const) {
          const b = el("button", { type: "button", disabled: "" }, fill(text, say));
          b.addEventListener("click", () => sendAnswer(check, answer, row));
          row.append(b);
        }
        actions.append(row);
        setTimeout(() => {
          for (const b of row.querySelectorAll("button")) b.disabled = false;
        }, ANSWER_DELAY_MS);
      }
    }
    const rkey = reportState || (report ? "button" : "");
    if (rkey !== reportKey) {
      reportKey = rkey;
      extra.textContent = "";
      if (rkey === "button") {
        const b = el("button", { type: "button", class: "r" }, T.report);
        b.addEventListener("click", openReport);
        extra.append(b);
      } else if (rkey === "sent" || rkey === "failed") {
        extra.append(el("p", { role: "status" }, fill(rkey === "sent" ? T.reported : T.reportFailed, { company })));
      }
    }
    // A focused control that went away leaves the focus on the heading, not lost at the top of the page.
    if (focused && !root.activeElement) head.focus();
  };

  const post = (path: string, body: object) =>
    fetch(api + path, {
      method: "POST",
      mode: "cors",
      credentials: "omit",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  async function sendAnswer(check: Check, answer: string, row: HTMLElement) {
    for (const b of row.querySelectorAll("button")) b.disabled = true;
    answerFailed = "";
    try {
      const r = await post(ANSWER + encodeURIComponent(check.id), { answer });
      if (r.ok) answered = { check, answer, calls: JSON.stringify(state?.calling.filter((c) => nameOf(c))) };
      else if (r.status !== 409) answerFailed = T.answerFailed; // 409: answered already; the stream says how
    } catch {
      answerFailed = T.answerFailed;
    }
    shownKey = "";
    render();
  }

  function openReport() {
    reportState = "form";
    reportKey = "form";
    extra.textContent = "";
    const form = el("form", { class: "r", "aria-label": T.report, novalidate: "" });
    const fields = (["callerNumber", "note"] as const).map((name) => {
      const input = el("input", { id: name, name, type: "text", maxlength: "200", autocomplete: "off" });
      form.append(el("label", { for: name }, T[name]), input);
      return input;
    });
    const send = el("button", { type: "submit", class: "s" }, T.send);
    const cancel = el("button", { type: "button" }, T.cancel);
    const row = el("div", { class: "a" });
    row.append(send, cancel);
    form.prepend(el("p", {}, fill(T.reportHint, { company })));
    form.append(row);
    extra.append(form);
    fields[0]?.focus();
    cancel.addEventListener("click", () => {
      reportState = "";
      render();
    });
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const body: Record<string, string> = {};
      for (const f of fields) if (f.value.trim()) body[f.name] = f.value.trim().replace(/\s+/g, " ");
      send.disabled = true;
      try {
        reportState = (await post(REPORT, { ...body, language })).ok ? "sent" : "failed";
      } catch {
        reportState = "failed";
      }
      render();
    });
  }

  /** A state from the server: shown, and confirmed now. */
  const take = (data: string) => {
    try {
      const s = JSON.parse(data) as State;
      if (s && typeof s === "object" && Array.isArray(s.calling)) {
        state = s;
        if (s.companyName) company = s.companyName;
      }
    } catch {}
  };

  const getToken = async () => {
    if (!tokenUrl) return;
    const url = new URL(tokenUrl, document.baseURI);
    if (url.origin !== location.origin) throw 0;
    const r = await fetch(url.href, { credentials: "same-origin", cache: "no-store" });
    if (r.status === 401 || r.status === 403) throw 403;
    const answer = (await r.json()) as { token?: unknown };
    if (!r.ok || typeof answer.token !== "string") throw 0;
    token = answer.token;
  };

  /** Refused (401/403): once more with a new token from data-token-url, else nothing shown but the warning. */
  const refused = () => {
    if (tokenUrl && !renewedToken) {
      renewedToken = true;
      token = "";
      connect();
    } else {
      dead = true;
      open = false;
      render();
    }
  };

  const later = (ms: number) => {
    clearTimeout(retryTimer);
    retryTimer = setTimeout(connect, ms);
  };

  async function connect() {
    clearTimeout(retryTimer);
    controller?.abort();
    const c = new AbortController();
    controller = c;
    try {
      if (!token) await getToken();
      const r = await fetch(api + STREAM, {
        mode: "cors",
        credentials: "omit",
        cache: "no-store",
        headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" },
        signal: c.signal,
      });
      if (r.status === 401 || r.status === 403) return refused();
      // Past the server's cap: the stream is asked for again every 15 s (nothing shown meanwhile).
      if (r.status === 503) return later(POLL_MS);
      if (!r.ok || !r.body) throw 0;
      const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        const blocks = buffer.split(/\r?\n\r?\n/);
        buffer = blocks.pop() || "";
        for (const block of blocks) {
          let name = "";
          let data = "";
          for (const line of block.split(/\r?\n/)) {
            const m = /^(\w+): ?(.*)$/.exec(line);
            if (m?.[1] === "event") name = m[2] as string;
            else if (m?.[1] === "data") data += m[2];
          }
          if (/^(end|revoked|expired)$/.test(name)) throw 0;
          if (data) take(data);
          // Any event or comment (a heartbeat) confirms the state the stream last sent.
          if (state) {
            open = true;
            renewedToken = false;
            failures = 0;
            confirmedAt = Date.now();
          }
        }
        render();
      }
    } catch (e) {
      if (e === 403) return refused();
    }
    if (controller !== c) return; // replaced by a newer connection
    open = false;
    render();
    later(Math.min(15_000, 1000 * 2 ** failures++) * (0.75 + Math.random() / 2));
  }

  /** Can't tell any more (tab visible again, back/forward cache): say so, and ask the server afresh. */
  const recheck = () => {
    open = false;
    if (dead && tokenUrl) {
      dead = false;
      renewedToken = false;
      token = "";
    }
    if (!dead) {
      since = Date.now();
      render();
      connect();
    }
  };
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") recheck();
    else render();
  });
  addEventListener("pageshow", (e) => {
    if (e.persisted) recheck();
  });
  addEventListener("pagehide", () => {
    controller?.abort();
    controller = null;
  });
  // A question is asked only while the component is on screen (and the tab visible).
  if (typeof IntersectionObserver === "function")
    new IntersectionObserver((entries) => {
      intersecting = !!entries[entries.length - 1]?.isIntersecting;
      render();
    }).observe(host);
  setInterval(render, 1000);

  connect();
  const file = __CALL_STATUS_TEXT_FILES__[language];
  (file
    ? fetch(`${api}/${file[0]}`, { mode: "cors", credentials: "omit", integrity: file[1] })
        .then((r) => (r.ok ? r.json() : {}))
        .catch(() => ({}))
    : Promise.resolve({})
  ).then((texts: Partial<CallStatusTexts>) => {
    T = { ...ENGLISH, ...texts };
    box.lang = texts.checking ? language : DEFAULT_LANGUAGE;
    box.setAttribute("aria-label", T.region);
    ready = true;
    render();
  });
}

const script = ownScript();
if (script) {
  if (script.hasAttribute("data-target") && document.readyState === "loading")
    document.addEventListener("DOMContentLoaded", () => start(script));
  else start(script);
}
