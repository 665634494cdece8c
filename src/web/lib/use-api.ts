import { type DependencyList, type SetStateAction, useCallback, useEffect, useRef, useState } from "react";

type UseApiOptions = {
  /** names what is loaded, in the log when loading fails ("Could not load the …") */
  what: string;
  /** load only while true (default true) */
  enabled?: boolean;
};

export type ApiState<T> = {
  /** the last answer; undefined before the first one */
  data: T | undefined;
  /** why the last load failed (an ApiError for an answer), null when it did not */
  error: unknown;
  loading: boolean;
  /** loads again; resolves once the answer (or the failure) is shown */
  reload(): Promise<void>;
  /** replaces the data shown (an answer of a save) */
  setData(value: SetStateAction<T | undefined>): void;
  /** drops the load under way, if any: its answer is not shown (another loader answers instead) */
  drop(): void;
};

/**
 * Loads with `fetcher` on mount and again when `deps` change (while `enabled`): the data, the error and
 * whether a load runs. The answer of a load a newer one replaced, or of a component that is gone, is
 * dropped (its request aborted).
 */
export function useApi<T>(
  fetcher: (signal: AbortSignal) => Promise<T>,
  deps: DependencyList,
  { what, enabled = true }: UseApiOptions,
): ApiState<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(enabled);
  const latest = useRef<AbortController | null>(null);
  const fetcherRef = useRef(fetcher);
  fetcherRef.current = fetcher;

  const reload = useCallback(async (): Promise<void> => {
    latest.current?.abort();
    const controller = new AbortController();
    latest.current = controller;
    setLoading(true);
    try {
      const answer = await fetcherRef.current(controller.signal);
      if (controller.signal.aborted) return;
      setData(answer);
      setError(null);
    } catch (failure) {
      if (controller.signal.aborted) return;
      console.error(`Could not load the ${what}`, failure);
      setError(failure);
    } finally {
      if (latest.current === controller) setLoading(false);
    }
  }, [what]);

  const drop = useCallback(() => {
    latest.current?.abort();
    latest.current = null;
    setLoading(false);
  }, []);

  useEffect(() => {
    if (!enabled) return;
    void reload();
    return () => latest.current?.abort();
  }, [enabled, reload, ...deps]);

  return { data, error, loading, reload, setData, drop };
}
