import type { clientInfoAnswer, generatedWordsAnswer } from "@shared/codes-schemas";
import { IDENTITY_CODE, UI_TIMING } from "@shared/constants";
import { MESSAGES } from "@shared/messages";
import { ApiError, api, errorMessage } from "@web/lib/api";
import { useCallback, useEffect, useRef, useState } from "react";
import type { z } from "zod";

type ClientInfo = z.infer<typeof clientInfoAnswer>;

/** The identity-code calls. */
export const codesApi = {
  clientInfo: () => api.get<ClientInfo>("/api/client-info"),
  generateWords: () => api.post<z.infer<typeof generatedWordsAnswer>>("/api/generate-words"),
};

/** The signed-in user's name, company and website; null while loading, and cleared after a failure. */
export function useClientInfo(): ClientInfo | null {
  const [info, setInfo] = useState<ClientInfo | null>(null);
  useEffect(() => {
    let live = true;
    codesApi
      .clientInfo()
      .then((answer) => live && setInfo(answer))
      .catch(() => live && setInfo(null));
    return () => {
      live = false;
    };
  }, []);
  return info;
}

/**
 * How long a code received now stays valid: the server's expiresAt against this device's clock.
 * A device clock far off (the result outside 0..lifetime) would show nonsense, so the full lifetime is used then.
 */
function remainingMs(expiresAt: string): number {
  const left = Date.parse(expiresAt) - Date.now();
  return Number.isFinite(left) && left > 0 && left <= IDENTITY_CODE.lifetimeMs ? left : IDENTITY_CODE.lifetimeMs;
}

export type IdentityCode = {
  words: string[] | null;
  /** whole seconds left, counted down every second; 0 once the words are cleared */
  secondsLeft: number;
  busy: boolean;
  error: string | null;
  /** true after a shown code ran out (until the next one) */
  expired: boolean;
  generate(): Promise<void>;
};

/** Generates codes and counts each one down from the server's expiresAt; the words are cleared at 0. */
export function useIdentityCode(): IdentityCode {
  const [words, setWords] = useState<string[] | null>(null);
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
    const left = Math.max(0, Math.ceil((deadline.current - Date.now()) / 1000));
    setSecondsLeft(left);
    if (left === 0) {
      stop();
      setWords(null);
      setExpired(true);
    }
  }, [stop]);

  const generate = useCallback(async () => {
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      const answer = await codesApi.generateWords();
      stop();
      deadline.current = Date.now() + remainingMs(answer.expiresAt);
      setWords(answer.words);
      setExpired(false);
      tick();
      timer.current = setInterval(tick, UI_TIMING.countdownTickMs);
    } catch (err) {
      setError(
        err instanceof ApiError && err.status === 429
          ? MESSAGES.tooManyCodes
          : errorMessage(err, MESSAGES.generateWordsFailed),
      );
    } finally {
      setBusy(false);
    }
  }, [busy, stop, tick]);

  return { words, secondsLeft, busy, error, expired, generate };
}
