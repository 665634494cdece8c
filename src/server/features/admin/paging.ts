import type { Page } from "@shared/admin";

/** A LIKE/ILIKE pattern matching `text` anywhere, with its wildcards (% _ \) taken literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The page envelope of list endpoints; `pages` is at least 1 so "Page 1 of 1" reads well when empty. */
export function pageEnvelope<T>(items: T[], total: number, page: number, pageSize: number): Page<T> {
  return { items, total, page, pageSize, pages: Math.max(1, Math.ceil(total / pageSize)) };
}
