import type { CodeStatus } from "@shared/codes";
import { IDENTITY_CODE, UI_TIMING } from "@shared/constants";
import { ERROR_CODES } from "@shared/error-codes";
import { DEFAULT_LANGUAGE, isLanguage, type Language } from "@shared/languages";
import { MESSAGES } from "@shared/messages";
import { ApiError, apiHref, errorMessage, send } from "@web/lib/api";
import { useApi } from "@web/lib/use-api";
import { useCallback, useEffect, useRef, useState } from "react";

/** The identity-code calls. */
export const codesApi = {
  clientInfo: (signal?: AbortSignal) => send("getClientInfo", { signal }),
  /** with `callId` (the caller's active call) the code belongs to that call */
  generateWords: (language: Language, callId?: string) =>
    send("generateCode", { body: callId ? { language, callId } : { language } }),
  /** the code's status as server-sent events */
  eventsHref: (id: number) => apiHref("streamCodeEvents", { path: { id: String(id) } }),
};

type ClientInfo = Awaited<ReturnType<typeof codesApi.clientInfo>>;

/** The signed-in user's name, company and website; null while loading, and after a failure. */
export function useClientInfo(): ClientInfo | null {
  const { data, error } = useApi(codesApi.clientInfo, [], { what: "account's details" });
  return error ? null : (data ?? null);
}

/** What the caller sees of the customer's check: waiting, verified (when, on which site), or expired unverified. */
export type CustomerCheck =
  | { state: "waiting" }
  | { state: "verified"; at: string; site: string | null }
  | { state: "expired" };

/**
 * Follows a code's status over server-sent events: "verified" the moment any server process answers the
 * look-up, "expired" at expiry. EventSource reconnects by itself after a network drop, and the server
 * sends the state again on each connection; the stream is closed once the state is final.
 */
export function useCustomerCheck(id: number | null): CustomerCheck | null {
  const [check, setCheck] = useState<CustomerCheck | null>(null);
  useEffect(() => {
    if (id === null) {
      setCheck(null);
      return;
    }
    setCheck({ state: "waiting" });
    const source = new EventSource(codesApi.eventsHref(id));
    const final = (event: MessageEvent<string>) => {
      source.close();
      try {
        const data = JSON.parse(event.data) as CodeStatus;
        setCheck(
          data.status === "verified" && data.verifiedAt
            ? { state: "verified", at: data.verifiedAt, site: data.site }
            : { state: "expired" },
        );
      } catch {
        setCheck(null);
      }
    };
    source.addEventListener("verified", final);
    source.addEventListener("expired", final);
    return () => source.close();
  }, [id]);
  return check;
}

/** Where the device remembers the customer's language of the last code. */
const LANGUAGE_KEY = "callproof.customerLanguage";

/** The customer's language for new codes, remembered on this device (localStorage; English when unknown). */
export function useCustomerLanguage(): [Language, (language: Language) => void] {
  const [language, setLanguage] = useState<Language>(() => {
    try {
      const saved = window.localStorage.getItem(LANGUAGE_KEY);
      return isLanguage(saved) ? saved : DEFAULT_LANGUAGE;
    } catch {
      return DEFAULT_LANGUAGE;
    }
  });
  const choose = useCallback((next: Language) => {
    setLanguage(next);
    try {
      window.localStorage.setItem(LANGUAGE_KEY, next);
    } catch {
      // storage refused (private mode): the choice lasts for this page
    }
  }, []);
  return [language, choose];
}

export type IdentityCode = {
  /** the shown code's id (kept after its words are cleared, for its status) */
  id: number | null;
  words: string[] | null;
  /** the language of the shown words */
  language: Language;
  /** whole seconds left, counted down every second; 0 once the words are cleared */
  secondsLeft: number;
  busy: boolean;
  error: string | null;
  /** true after a shown code ran out (until the next one) */
  expired: boolean;
  /** `callFor`: the call the code belongs to (null: none); a failure there is shown and no code is made */
  generate(language: Language, callFor?: () => Promise<string | null>): Promise<void>;
};

/**
 * Generates codes and counts each one down; the words are cleared at 0. The count starts from the code's
 * lifetime less the time the request took (the server created it somewhere in between), on this page's
 * monotonic clock: a device clock off by minutes does not matter.
 */
export function useIdentityCode(): IdentityCode {
  const [id, setId] = useState<number | null>(null);
  const [words, setWords] = useState<string[] | null>(null);
  const [language, setLanguage] = useState<Language>(DEFAULT_LANGUAGE);
  const [secondsLeft, setSecondsLeft] = useState(0);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [expired, setExpired] = useState(false);
  const deadline = useRef(0);
  const timer = useRef<ReturnType<typeof setInterval> | undefined>(undefined);

  const stop = useCallback(() => {
    clearInterval(timer.current);
    timer.current = undefined;
  }, []);
  useEffect(() => stop, [stop]);

  const tick = useCallback(() => {
    const left = Math.max(0, Math.ceil((deadline.current - performance.now()) / 1000));
    setSecondsLeft(left);
    if (left === 0) {
      stop();
      setWords(null);
      setExpired(true);
    }
  }, [stop]);

  const generate = useCallback(
    async (asked: Language, callFor?: () => Promise<string | null>) => {
      if (busy) return;
      setBusy(true);
      setError(null);
      try {
        let callId: string | undefined;
        try {
          callId = (await callFor?.()) ?? undefined;
        } catch (err) {
          // the call could not start (its own limit, a bad reference): its message, and no code
          setError(errorMessage(err, MESSAGES.generateWordsFailed));
          return;
        }
        const sent = performance.now();
        const answer = await codesApi.generateWords(asked, callId);
        stop();
        deadline.current = sent + IDENTITY_CODE.lifetimeMs;
        setId(answer.id);
        setWords(answer.words);
        setLanguage(answer.language);
        setExpired(false);
        tick();
        timer.current = setInterval(tick, UI_TIMING.countdownTickMs);
      } catch (err) {
        setError(
          err instanceof ApiError && err.code === ERROR_CODES.rateLimited
            ? MESSAGES.tooManyCodes
            : errorMessage(err, MESSAGES.generateWordsFailed),
        );
      } finally {
        setBusy(false);
      }
    },
    [busy, stop, tick],
  );

  return { id, words, language, secondsLeft, busy, error, expired, generate };
}
