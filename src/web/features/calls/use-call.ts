import { CALLS_TEXT, type CallDirection, type CheckEvent, customerRefSchema } from "@shared/calls";
import { ApiError, errorMessage } from "@web/lib/api";
import { useCallback, useEffect, useRef, useState } from "react";
import { type ActiveCall, callsApi, readEventStream } from "./api";
import { CALL_PANEL_TEXT } from "./texts";

/** The dashboard renews its active call this often (a call nobody renews ends after 2 minutes). */
const RENEW_EVERY_MS = 30_000;
/** After a dropped event stream, connect again after this long (the server sends the state again). */
const RECONNECT_AFTER_MS = 1_000;
/** The call's latest customer check, as its `check` events tell it (`keyName`: the API key that answered). */
export type CallCheck = CheckEvent;

export type CallPanel = {
  /** false for someone who cannot hold calls (no organisation): the panel is not shown */
  available: boolean;
  customerRef: string;
  setCustomerRef(value: string): void;
  call: ActiveCall | null;
  check: CallCheck | null;
  /** the call had a denied check: the red notice stays and no new check can be asked */
  denied: boolean;
  /** other employees on a call with the same customer */
  colleagues: number;
  /** the stream of the call's events is not connected */
  liveLost: boolean;
  notice: string | null;
  error: string | null;
  busy: boolean;
  start(direction: CallDirection): Promise<void>;
  /** The call a new code belongs to: the active one, else an outbound call started with the reference typed; null for none. */
  callForCode(): Promise<string | null>;
  ask(): Promise<void>;
  end(): Promise<void>;
  disown(): Promise<void>;
};

/**
 * The employee's active call on /dashboard: loads it, starts and ends it, renews it while the panel is open,
 * asks the customer to confirm, and follows the check's state live over the call's event stream.
 */
export function useCallPanel(): CallPanel {
  const [available, setAvailable] = useState(true);
  const [customerRef, setCustomerRef] = useState("");
  const [call, setCall] = useState<ActiveCall | null>(null);
  const [check, setCheck] = useState<CallCheck | null>(null);
  const [denied, setDenied] = useState(false);
  const [colleagues, setColleagues] = useState(0);
  const [liveLost, setLiveLost] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const callRef = useRef<ActiveCall | null>(null);
  callRef.current = call;

  const show = useCallback((next: ActiveCall | null) => {
    if (next?.id !== callRef.current?.id) {
      setCheck(null);
      setDenied(false);
      setColleagues(0);
      setLiveLost(false);
    }
    callRef.current = next;
    setCall(next);
  }, []);

  const ended = useCallback(
    (text: string | null = CALL_PANEL_TEXT.ended) => {
      show(null);
      setNotice(text);
    },
    [show],
  );

  // The active call (one started by the phone system, or in another tab, included).
  useEffect(() => {
    const controller = new AbortController();
    callsApi.current(controller.signal).then(
      (current) => show(current ?? null),
      (failure: unknown) => {
        if (controller.signal.aborted) return;
        if (failure instanceof ApiError && (failure.status === 403 || failure.status === 401)) setAvailable(false);
      },
    );
    return () => controller.abort();
  }, [show]);

  const id = call?.id ?? null;

  // Renewed while the panel is open; a call that ended meanwhile (elsewhere, or after 60 minutes) goes.
  useEffect(() => {
    if (!id) return;
    const timer = setInterval(() => {
      callsApi.renew(id).catch((failure: unknown) => {
        if (failure instanceof ApiError && failure.status >= 400 && failure.status < 500 && callRef.current?.id === id)
          ended();
      });
    }, RENEW_EVERY_MS);
    return () => clearInterval(timer);
  }, [id, ended]);

  // The call's events: the latest check at once and on every change, colleagues, and the call's end.
  useEffect(() => {
    if (!id) return;
    const controller = new AbortController();
    let retry: ReturnType<typeof setTimeout> | undefined;
    const connect = () => {
      readEventStream(callsApi.eventsHref(id), controller.signal, ({ event, data }) => {
        setLiveLost(false);
        if (event === "check" && data && typeof data === "object") {
          const next = data as CallCheck;
          setCheck(next);
          if (next.status === "denied") setDenied(true);
        } else if (event === "colleague" && data && typeof data === "object") {
          setColleagues(Number((data as { count?: unknown }).count) || 0);
        } else if (event === "call" && (data as { status?: unknown } | null)?.status === "ended") {
          controller.abort();
          if (callRef.current?.id === id) ended();
        }
      })
        .catch((failure: unknown) => {
          if (failure instanceof ApiError && (failure.status === 404 || failure.status === 403)) {
            controller.abort();
            if (callRef.current?.id === id) ended();
          }
        })
        .finally(() => {
          if (controller.signal.aborted) return;
          setLiveLost(true);
          retry = setTimeout(connect, RECONNECT_AFTER_MS);
        });
    };
    connect();
    return () => {
      controller.abort();
      clearTimeout(retry);
    };
  }, [id, ended]);

  const run = useCallback(async (work: () => Promise<void>, failed: string) => {
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      await work();
    } catch (failure) {
      setError(errorMessage(failure, failed));
    } finally {
      setBusy(false);
    }
  }, []);

  const startCall = useCallback(
    async (direction: CallDirection): Promise<ActiveCall> => {
      const ref = customerRef.trim();
      if (!ref) throw new ApiError(400, undefined, CALL_PANEL_TEXT.customerRefRequired);
      if (!customerRefSchema.safeParse(ref).success) throw new ApiError(400, undefined, CALLS_TEXT.customerRefInvalid);
      const started = await callsApi.start(ref, direction);
      show({ ...started, startedVia: "dashboard" });
      setCustomerRef("");
      return callRef.current as ActiveCall;
    },
    [customerRef, show],
  );

  const start = useCallback(
    (direction: CallDirection) => run(async () => void (await startCall(direction)), CALL_PANEL_TEXT.startFailed),
    [run, startCall],
  );

  const callForCode = useCallback(async (): Promise<string | null> => {
    if (callRef.current) return callRef.current.id;
    if (!customerRef.trim()) return null;
    setError(null);
    setNotice(null);
    return (await startCall("outbound")).id;
  }, [customerRef, startCall]);

  const ask = useCallback(
    () =>
      run(async () => {
        const current = callRef.current;
        if (!current) return;
        const asked = await callsApi.askCustomer(current.id);
        setCheck((shown) =>
          shown?.id === asked.id && shown.status !== "pending"
            ? shown
            : { id: asked.id, status: "pending", answeredAt: null, answeredVia: null, keyName: null },
        );
      }, CALL_PANEL_TEXT.actionFailed),
    [run],
  );

  const end = useCallback(
    () =>
      run(async () => {
        const current = callRef.current;
        if (!current) return;
        await callsApi.end(current.id);
        ended();
      }, CALL_PANEL_TEXT.actionFailed),
    [run, ended],
  );

  const disown = useCallback(
    () =>
      run(async () => {
        const current = callRef.current;
        if (!current) return;
        await callsApi.disown(current.id);
        ended(CALL_PANEL_TEXT.disowned);
      }, CALL_PANEL_TEXT.actionFailed),
    [run, ended],
  );

  return {
    available,
    customerRef,
    setCustomerRef,
    call,
    check,
    denied,
    colleagues,
    liveLost,
    notice,
    error,
    busy,
    start,
    callForCode,
    ask,
    end,
    disown,
  };
}
