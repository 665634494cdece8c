import type { Page } from "@shared/admin";
import { PAGE_SIZE } from "@shared/constants";
import { useCallback, useEffect, useRef, useState } from "react";
import { errorMessage } from "./api";

/** A query string of the given values, leaving out the empty ones. */
export function queryString(values: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) continue;
    const text = String(value).trim();
    if (text) params.set(key, text);
  }
  const query = params.toString();
  return query ? `?${query}` : "";
}

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

export type ListQuery = { q: string; page: number };

/**
 * A searchable list the server pages: the page shown, its query and whether a request runs.
 * Answers of requests older than the newest one are dropped; `what` names the list in the log.
 */
export function usePagedList<T>(fetchPage: (q: string, page: number) => Promise<T[] | Page<T>>, what: string) {
  const [list, setList] = useState<Page<T>>(EMPTY_PAGE);
  const [query, setQuery] = useState<ListQuery>({ q: "", page: 1 });
  const [loading, setLoading] = useState(false);
  const queryRef = useRef(query);
  queryRef.current = query;
  const request = useRef(0);

  const load = useCallback(
    async function load(q: string, page: number): Promise<void> {
      const id = ++request.current;
      setLoading(true);
      try {
        const answer = asPage(await fetchPage(q, page), page);
        if (id !== request.current) return;
        // The page went past the end (the list shrank): show the last one instead.
        if (answer.items.length === 0 && page > 1 && answer.pages < page) {
          setQuery({ q, page: answer.pages });
          return load(q, answer.pages);
        }
        setList(answer);
        if (answer.page !== page) setQuery({ q, page: answer.page });
      } catch (error) {
        if (id !== request.current) return;
        console.error(`Could not load the ${what}`, error);
        setList(EMPTY_PAGE);
      } finally {
        if (id === request.current) setLoading(false);
      }
    },
    [fetchPage, what],
  );

  /** search the list (back to page 1) */
  const search = useCallback(
    (q: string) => {
      setQuery({ q, page: 1 });
      void load(q, 1);
    },
    [load],
  );

  const showPage = useCallback(
    (page: number) => {
      const { q } = queryRef.current;
      setQuery({ q, page });
      void load(q, page);
    },
    [load],
  );

  const reload = useCallback(() => load(queryRef.current.q, queryRef.current.page), [load]);

  /** the query as it is now, for a loader that fetches the list together with other data */
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

  const clear = useCallback(() => setList(EMPTY_PAGE), []);

  return { list, query, loading, search, showPage, reload, currentQuery, claim, clear };
}

/**
 * One page of a list the server pages and filters, fetched again when `fetchPage` (its filters)
 * or `refreshKey` (a change elsewhere on the page) changes; nothing is fetched while not enabled.
 * `what` names the list in the log and in the error shown.
 */
export function useFetchedPage<T>(
  fetchPage: (page: number) => Promise<Page<T>>,
  { what, refreshKey, enabled = true }: { what: string; refreshKey: number; enabled?: boolean },
) {
  const [pageNumber, setPageNumber] = useState(1);
  const [page, setPage] = useState<Page<T> | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!enabled) return;
    let live = true;
    void refreshKey; // a change elsewhere on the page: read the list again
    setLoading(true);
    fetchPage(pageNumber).then(
      (answer) => {
        if (!live) return;
        setPage(answer);
        setError(null);
        setLoading(false);
      },
      (err) => {
        if (!live) return;
        console.error(`Could not load the ${what}`, err);
        setPage(null);
        setError(errorMessage(err, `Could not load the ${what}. Please try again.`));
        setLoading(false);
      },
    );
    return () => {
      live = false;
    };
  }, [fetchPage, pageNumber, refreshKey, enabled, what]);

  return { page, loading, error, showPage: setPageNumber };
}
