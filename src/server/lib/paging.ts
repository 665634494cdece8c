import type { Page } from "@shared/paging";

/** A LIKE/ILIKE pattern matching `text` anywhere, with its wildcards (% _ \) taken literally. */
export function containsPattern(text: string): string {
  return `%${escapeLike(text)}%`;
}

/** `text` with the LIKE wildcards (% _ \) escaped, to be taken literally. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Loads one page (1-based) of `pageSize` rows and the total, and wraps them in the page envelope. */
export async function loadPage<T>(
  page: number,
  pageSize: number,
  load: (slice: { limit: number; offset: number }) => Promise<T[]>,
  count: () => Promise<number>,
): Promise<Page<T>> {
  const [items, total] = await Promise.all([load({ limit: pageSize, offset: (page - 1) * pageSize }), count()]);
  return pageEnvelope(items, total, page, pageSize);
}

/** The page envelope of list endpoints; `pages` is at least 1. */
export function pageEnvelope<T>(items: T[], total: number, page: number, pageSize: number): Page<T> {
  return { items, total, page, pageSize, pages: Math.max(1, Math.ceil(total / pageSize)) };
}

/** What a feed statement reads: the page's rows (as JSON; PGlite may hand it over as text). */
export type FeedRead<R> = { items: R[] | string } | undefined;

/**
 * A cursor page of a feed (GET /api/v1/audit and /reports) and its `next`: the last item's position, or on
 * an empty page the cursor sent. Never the feed's head: that would tell every organisation how many events
 * the others wrote (issue 32).
 */
export function feedPage<R extends { position: number }, T>(
  read: FeedRead<R>,
  p: { after: number; limit: number },
  toItem: (row: R) => T,
): { items: T[]; next: string } {
  const rows: R[] = typeof read?.items === "string" ? JSON.parse(read.items) : (read?.items ?? []);
  const next = rows.at(-1)?.position ?? p.after;
  return { items: rows.map(toItem), next: String(next) };
}
