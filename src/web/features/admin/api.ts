import type { AccountRecord, Page } from "@shared/admin";
import type { AuditEntry } from "@shared/audit";
import { ApiError, api } from "@web/lib/api";
import { queryString, useFetchedPage, usePagedList } from "@web/lib/paged-list";
import { useCallback, useEffect, useRef, useState } from "react";

export type Stats = { totalGenerated: number; totalVerified: number };
export type AuditFilters = { actor: string; action: string; organisationId: string; from: string; to: string };
export type AuditPage = Page<AuditEntry>;

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
  verifySite: (organisationId: number, host: string) =>
    api.post<{ host: string; status: string }>(`/api/admin/organisations/${organisationId}/sites`, { host }),
  auditCsvUrl: (filters: AuditFilters) => `/api/admin/audit.csv${queryString(filters)}`,
};

/** Why a call failed, for the spec's alerts ("…: " + server message or error text). */
export function failureReason(error: unknown): string {
  if (error instanceof ApiError)
    return error.message ?? (error.status ? `request failed (HTTP ${error.status})` : "network error");
  return error instanceof Error ? error.message : String(error);
}

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
  const active = usePagedList(adminApi.activeEmployers, "active employers");
  const { claim: claimActive, currentQuery: activeQueryNow, clear: clearActive } = active;
  /** answers of requests older than the newest one are dropped */
  const allRequest = useRef(0);

  const reloadAll = useCallback(async () => {
    const id = ++allRequest.current;
    const acceptActive = claimActive();
    const { q, page } = activeQueryNow();
    try {
      const [statsAnswer, pendingAnswer, activeAnswer] = await Promise.all([
        adminApi.stats(),
        adminApi.pendingAccounts(),
        adminApi.activeEmployers(q, page),
      ]);
      if (id !== allRequest.current) return;
      setStats(statsAnswer);
      setPending(Array.isArray(pendingAnswer) ? pendingAnswer : []);
      acceptActive(activeAnswer, page);
      setStatus("ready");
    } catch (error) {
      if (id !== allRequest.current) return;
      console.error("Could not load the admin dashboard", error);
      setPending([]);
      clearActive();
      setStatus("failed");
    }
  }, [claimActive, activeQueryNow, clearActive]);

  useEffect(() => {
    void reloadAll();
  }, [reloadAll]);

  const removePending = useCallback(
    (id: number) => setPending((list) => list.filter((account) => account.id !== id)),
    [],
  );

  return {
    status,
    stats,
    pending,
    active: active.list,
    activeQuery: active.query,
    activeLoading: active.loading,
    searchActive: active.search,
    showActivePage: active.showPage,
    reloadActive: active.reload,
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
  const fetchPage = useCallback((page: number) => adminApi.audit(filters, page), [filters]);
  const { page, loading, error, showPage } = useFetchedPage(fetchPage, { what: "audit log", refreshKey });

  const apply = useCallback(
    (next: AuditFilters) => {
      setFilters(next);
      showPage(1);
    },
    [showPage],
  );

  return { filters, page, loading, error, apply, showPage };
}
