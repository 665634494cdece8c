import { PAGE_SIZE } from "@shared/constants";
import type { Page } from "@shared/paging";
import { useCallback, useRef, useState } from "react";
import { errorMessage } from "./api";
import { useApi } from "./use-api";

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
 * failure), its filters and page number, whether a request runs and why the last one failed. It loads
 * through useApi: answers of requests older than the newest one are dropped; a page past the end shows
 * the last one.
 */
export function usePagedList<T, F>(
  fetchPage: (filters: F, page: number) => Promise<T[] | Page<T>>,
  { what, filters: initialFilters, autoLoad }: PagedListOptions<F>,
) {
  const [query, setQueryState] = useState({ filters: initialFilters, page: 1 });
  const queryRef = useRef(query);
  const setQuery = useCallback((next: { filters: F; page: number }) => {
    queryRef.current = next;
    setQueryState(next);
  }, []);
  /** bumped by each load and each claim: a claimed answer older than either is not shown */
  const generation = useRef(0);
  const clearRef = useRef<() => void>(() => {});

  const api = useApi(
    async (signal) => {
      generation.current += 1;
      const { filters } = queryRef.current;
      let { page } = queryRef.current;
      try {
        let answer = asPage(await fetchPage(filters, page), page);
        // The page went past the end (the list shrank): show the last one instead.
        while (answer.items.length === 0 && page > 1 && answer.pages < page) {
          page = answer.pages;
          setQuery({ filters, page });
          answer = asPage(await fetchPage(filters, page), page);
        }
        if (answer.page !== page) setQuery({ filters, page: answer.page });
        return answer;
      } catch (failure) {
        // A failed load shows no list (unless a newer load replaced it).
        if (!signal.aborted) clearRef.current();
        throw failure;
      }
    },
    [autoLoad?.refreshKey],
    { what, enabled: autoLoad ? autoLoad.enabled !== false : false },
  );
  const { reload, setData, drop } = api;
  clearRef.current = () => setData(undefined);

  /** new filters: back to page 1 */
  const search = useCallback(
    (filters: F) => {
      setQuery({ filters, page: 1 });
      void reload();
    },
    [reload, setQuery],
  );

  const showPage = useCallback(
    (page: number) => {
      setQuery({ filters: queryRef.current.filters, page });
      void reload();
    },
    [reload, setQuery],
  );

  /** the filters and page as they are now, for a loader that fetches the list together with other data */
  const currentQuery = useCallback(() => queryRef.current, []);

  /**
   * For a loader that fetches the list together with other data: call it before fetching (the list's own
   * load under way is dropped); the function it returns shows the answer unless a newer request for the
   * list came since.
   */
  const claim = useCallback(() => {
    drop();
    const id = ++generation.current;
    return (answer: T[] | Page<T>, page: number) => {
      if (id === generation.current) setData(asPage(answer, page));
    };
  }, [drop, setData]);

  const clear = useCallback(() => setData(undefined), [setData]);

  return {
    list: api.data ?? null,
    query,
    loading: api.loading,
    error: api.error ? errorMessage(api.error, `Could not load the ${what}. Please try again.`) : null,
    search,
    showPage,
    reload,
    currentQuery,
    claim,
    clear,
  };
}

/** A list as usePagedList keeps it: what a table, its search field and its pager need. */
export type PagedList<T, F> = ReturnType<typeof usePagedList<T, F>>;
