import { useCallback, useEffect, useRef, useState } from "react";
import type { AccountRecord, Page } from "../../../shared/admin";
import type { AuditEntry } from "../../../shared/audit";
import { PAGE_SIZE } from "../../../shared/constants";
import { ApiError, api, errorMessage } from "../../lib/api";

export type Stats = { totalGenerated: number; totalVerified: number };
export type AuditFilters = { actor: string; action: string; organisationId: string; from: string; to: string };
export type AuditPage = Page<AuditEntry>;

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

/** A list endpoint answers a page when asked for one; an older server may answer the whole array: page it here. */
export function asPage<T>(answer: T[] | Page<T>, page: number, pageSize: number): Page<T> {
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

/** The admin dashboard's calls (CONTRACT.md, HTTP API; paging and audit as in src/shared/admin.ts and audit.ts). */
export const adminApi = {
  stats: () => api.get<Stats>("/api/admin/stats"),
  pendingAccounts: () => api.get<AccountRecord[]>("/api/admin/pending-accounts"),
  activeEmployers: (q: string, page: number) =>
    api.get<AccountRecord[] | Page<AccountRecord>>(`/api/admin/active-employers${queryString({ q, page })}`),
  activate: (id: number) => api.post<{ message?: string }>(`/api/admin/activate-account/${id}`),
  deactivateEmployer: (id: number) => api.post<{ message?: string }>(`/api/admin/deactivate-employer/${id}`),
  generateEmployerCode: (email: string) =>
    api.post<{ code: string }>("/api/admin/generate-employer-access-code", { email }),
  deactivateByDomain: (domain: string) =>
    api.post<{ message: string; count: number }>("/api/admin/deactivate-by-domain", { domain }),
  audit: (filters: AuditFilters, page: number) =>
    api.get<AuditPage>(`/api/admin/audit${queryString({ ...filters, page })}`),
  auditCsvUrl: (filters: AuditFilters) => `/api/admin/audit.csv${queryString(filters)}`,
};

/** Why a call failed, for the spec's alerts ("…: " + server message or error text). */
export function failureReason(error: unknown): string {
  if (error instanceof ApiError)
    return error.message ?? (error.status ? `request failed (HTTP ${error.status})` : "network error");
  return error instanceof Error ? error.message : String(error);
}

const EMPTY_PAGE: Page<AccountRecord> = { items: [], total: 0, page: 1, pageSize: PAGE_SIZE, pages: 1 };

export type AdminDashboard = {
  status: "loading" | "ready" | "failed";
  stats: Stats | null;
  pending: AccountRecord[];
  active: Page<AccountRecord>;
  activeQuery: { q: string; page: number };
  activeLoading: boolean;
  /** search the active employers (back to page 1) */
  searchActive(q: string): void;
  showActivePage(page: number): void;
  reloadActive(): Promise<void>;
  /** reload everything (after a change that touches both lists, such as a domain deactivation) */
  reloadAll(): Promise<void>;
  removePending(id: number): void;
};

/** The admin dashboard's data: stats, pending and active lists load together; the active list then pages by itself. */
export function useAdminDashboard(): AdminDashboard {
  const [status, setStatus] = useState<AdminDashboard["status"]>("loading");
  const [stats, setStats] = useState<Stats | null>(null);
  const [pending, setPending] = useState<AccountRecord[]>([]);
  const [active, setActive] = useState<Page<AccountRecord>>(EMPTY_PAGE);
  const [activeQuery, setActiveQuery] = useState({ q: "", page: 1 });
  const [activeLoading, setActiveLoading] = useState(false);
  const queryRef = useRef(activeQuery);
  queryRef.current = activeQuery;
  /** answers of requests older than the newest one are dropped */
  const activeRequest = useRef(0);
  const allRequest = useRef(0);

  const loadActive = useCallback(async function load(q: string, page: number): Promise<void> {
    const id = ++activeRequest.current;
    setActiveLoading(true);
    try {
      const answer = asPage(await adminApi.activeEmployers(q, page), page, PAGE_SIZE);
      if (id !== activeRequest.current) return;
      // A page past the end (the list shrank): show the last one instead.
      if (answer.items.length === 0 && page > 1 && answer.pages < page) {
        setActiveQuery({ q, page: answer.pages });
        return load(q, answer.pages);
      }
      setActive(answer);
      if (answer.page !== page) setActiveQuery({ q, page: answer.page });
    } catch (error) {
      if (id !== activeRequest.current) return;
      console.error("Could not load the active employers", error);
      setActive(EMPTY_PAGE);
    } finally {
      if (id === activeRequest.current) setActiveLoading(false);
    }
  }, []);

  const reloadAll = useCallback(async () => {
    const id = ++allRequest.current;
    const activeId = ++activeRequest.current;
    const { q, page } = queryRef.current;
    try {
      const [statsAnswer, pendingAnswer, activeAnswer] = await Promise.all([
        adminApi.stats(),
        adminApi.pendingAccounts(),
        adminApi.activeEmployers(q, page),
      ]);
      if (id !== allRequest.current) return;
      setStats(statsAnswer);
      setPending(Array.isArray(pendingAnswer) ? pendingAnswer : []);
      if (activeId === activeRequest.current) setActive(asPage(activeAnswer, page, PAGE_SIZE));
      setStatus("ready");
    } catch (error) {
      if (id !== allRequest.current) return;
      console.error("Could not load the admin dashboard", error);
      setPending([]);
      setActive(EMPTY_PAGE);
      setStatus("failed");
    }
  }, []);

  useEffect(() => {
    void reloadAll();
  }, [reloadAll]);

  const searchActive = useCallback(
    (q: string) => {
      setActiveQuery({ q, page: 1 });
      void loadActive(q, 1);
    },
    [loadActive],
  );

  const showActivePage = useCallback(
    (page: number) => {
      const { q } = queryRef.current;
      setActiveQuery({ q, page });
      void loadActive(q, page);
    },
    [loadActive],
  );

  const reloadActive = useCallback(() => loadActive(queryRef.current.q, queryRef.current.page), [loadActive]);

  const removePending = useCallback(
    (id: number) => setPending((list) => list.filter((account) => account.id !== id)),
    [],
  );

  return {
    status,
    stats,
    pending,
    active,
    activeQuery,
    activeLoading,
    searchActive,
    showActivePage,
    reloadActive,
    reloadAll,
    removePending,
  };
}

export type AuditLog = {
  filters: AuditFilters;
  page: AuditPage | null;
  loading: boolean;
  error: string | null;
  apply(filters: AuditFilters): void;
  showPage(page: number): void;
};

export const NO_AUDIT_FILTERS: AuditFilters = { actor: "", action: "", organisationId: "", from: "", to: "" };

/** The platform audit log, newest first, filtered and paged on the server. */
export function useAuditLog(refreshKey = 0): AuditLog {
  const [filters, setFilters] = useState<AuditFilters>(NO_AUDIT_FILTERS);
  const [pageNumber, setPageNumber] = useState(1);
  const [page, setPage] = useState<AuditPage | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    void refreshKey; // a change elsewhere on the page: read the log again
    setLoading(true);
    adminApi.audit(filters, pageNumber).then(
      (answer) => {
        if (!live) return;
        setPage(answer);
        setError(null);
        setLoading(false);
      },
      (err) => {
        if (!live) return;
        console.error("Could not load the audit log", err);
        setPage(null);
        setError(errorMessage(err, "Could not load the audit log. Please try again."));
        setLoading(false);
      },
    );
    return () => {
      live = false;
    };
  }, [filters, pageNumber, refreshKey]);

  const apply = useCallback((next: AuditFilters) => {
    setFilters(next);
    setPageNumber(1);
  }, []);

  return { filters, page, loading, error, apply, showPage: setPageNumber };
}
