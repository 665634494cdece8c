import { PAGE_SIZE } from "@shared/constants";
import type { Page } from "@shared/paging";
import { useCallback, useEffect, useRef, useState } from "react";
import { errorMessage } from "./api";

/** A list endpoint answers a page when asked for one; should it answer the whole array, page it here. */
export function asPage<T>(answer: T[] | Page<T>, page: number, pageSize: number = PAGE_SIZE): Page<T> {
  if (!Array.isArray(answer)) return answer;
  const pages = Math.max(1, Math.ceil(answer.length / pageSize));
  const current = Math.min(Math.max(1, page), pages);
  return {
    items: answer.slice((current - 1) * pageSize, current * pageSize),
    total: answer.length,
    page: current,
    pageSize,
    pages,
  };
}

export const EMPTY_PAGE: Page<never> = { items: [], total: 0, page: 1, pageSize: PAGE_SIZE, pages: 1 };

type PagedListOptions<F> = {
  /** names the list in the log and in the error shown */
  what: string;
  /** the filters (a search text, a set of fields) the list starts with */
  filters: F;
  /**
   * Fetch by itself: on mount, and again whenever `refreshKey` (a change elsewhere on the page) changes,
   * while `enabled`. Leave out when the page fetches the list together with other data (through `claim`).
   */
  autoLoad?: { refreshKey: number; enabled?: boolean };
};

/**
 * A list the server filters and pages: the page shown (null before the first answer and after a
 * failure), its filters and page number, whether a request runs and why the last one failed.
 * Answers of requests older than the newest one are dropped; a page past the end shows the last one.
 */
export function usePagedList<T, F>(
  fetchPage: (filters: F, page: number) => Promise<T[] | Page<T>>,
  { what, filters: initialFilters, autoLoad }: PagedListOptions<F>,
) {
  const [list, setList] = useState<Page<T> | null>(null);
  const [query, setQuery] = useState({ filters: initialFilters, page: 1 });
  const [loading, setLoading] = useState(autoLoad !== undefined);
  const [error, setError] = useState<string | null>(null);
  const queryRef = useRef(query);
  queryRef.current = query;
  const request = useRef(0);

  const load = useCallback(
    async function load(filters: F, page: number): Promise<void> {
      const id = ++request.current;
      setLoading(true);
      try {
        const answer = asPage(await fetchPage(filters, page), page);
        if (id !== request.current) return;
        // The page went past the end (the list shrank): show the last one instead.
        if (answer.items.length === 0 && page > 1 && answer.pages < page) {
          setQuery({ filters, page: answer.pages });
          return load(filters, answer.pages);
        }
        setList(answer);
        setError(null);
        if (answer.page !== page) setQuery({ filters, page: answer.page });
      } catch (err) {
        if (id !== request.current) return;
        console.error(`Could not load the ${what}`, err);
        setList(null);
        setError(errorMessage(err, `Could not load the ${what}. Please try again.`));
      } finally {
        if (id === request.current) setLoading(false);
      }
    },
    [fetchPage, what],
  );

  /** new filters: back to page 1 */
  const search = useCallback(
    (filters: F) => {
      setQuery({ filters, page: 1 });
      void load(filters, 1);
    },
    [load],
  );

  const showPage = useCallback(
    (page: number) => {
      const { filters } = queryRef.current;
      setQuery({ filters, page });
      void load(filters, page);
    },
    [load],
  );

  const reload = useCallback(() => load(queryRef.current.filters, queryRef.current.page), [load]);

  const refreshKey = autoLoad?.refreshKey;
  const enabled = autoLoad ? autoLoad.enabled !== false : false;
  useEffect(() => {
    if (!enabled) return;
    void refreshKey; // a change elsewhere on the page: read the list again
    void reload();
  }, [enabled, refreshKey, reload]);

  /** the filters and page as they are now, for a loader that fetches the list together with other data */
  const currentQuery = useCallback(() => queryRef.current, []);

  /**
   * For a loader that fetches the list together with other data: call it before fetching;
   * the function it returns shows the answer unless a newer request for the list came since.
   */
  const claim = useCallback(() => {
    const id = ++request.current;
    return (answer: T[] | Page<T>, page: number) => {
      if (id === request.current) setList(asPage(answer, page));
    };
  }, []);

  const clear = useCallback(() => setList(null), []);

  return { list, query, loading, error, search, showPage, reload, currentQuery, claim, clear };
}

/** A list as usePagedList keeps it: what a table, its search field and its pager need. */
export type PagedList<T, F> = ReturnType<typeof usePagedList<T, F>>;
