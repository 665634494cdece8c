import type { AccountRecord, statsAnswer } from "@shared/admin";
import type { auditPage } from "@shared/audit";
import { apiHref, queryOf, send } from "@web/lib/api";
import { type PagedList, usePagedList } from "@web/lib/paged-list";
import { useApi } from "@web/lib/use-api";
import { useCallback } from "react";
import type { z } from "zod";

export type Stats = z.infer<typeof statsAnswer>;
export type AuditFilters = { actor: string; action: string; organisationId: string; from: string; to: string };
export type AuditPage = z.infer<typeof auditPage>;

/** The admin dashboard's calls (lists page when asked for a page). */
export const adminApi = {
  stats: () => send("getAdminStats"),
  unroutedReports: (q: string, page: number) =>
    send("listUnroutedReports", { params: { query: queryOf({ q, page }) } }),
  pendingAccounts: () => send("listPendingAccounts"),
  activeEmployers: (q: string, page: number) =>
    send("listActiveEmployers", { params: { query: queryOf({ q, page }) } }),
  activate: (id: number) => send("activateAccount", { params: { path: { id: String(id) } } }),
  deactivateEmployer: (id: number) => send("deactivateEmployer", { params: { path: { id: String(id) } } }),
  eraseAccount: (id: number) => send("eraseAccount", { params: { path: { id: String(id) } } }),
  deactivatedOrganisations: () => send("listDeactivatedOrganisations"),
  reactivateOrganisation: (id: number) => send("reactivateOrganisation", { params: { path: { id: String(id) } } }),
  generateEmployerCode: (email: string) => send("inviteEmployer", { body: { email } }),
  deactivateByDomain: (domain: string) => send("deactivateByDomain", { body: { domain } }),
  audit: (filters: AuditFilters, page: number) =>
    send("listAuditEvents", { params: { query: queryOf({ ...filters, page }) } }),
  verifySite: (organisationId: number, host: string) =>
    send("adminVerifySite", {
      params: { path: { id: String(organisationId) } },
      body: { host },
    }),
  auditCsvUrl: (filters: AuditFilters) => apiHref("exportAuditCsv", { query: queryOf(filters) }),
};

export type AdminDashboard = {
  status: "loading" | "ready" | "failed";
  stats: Stats | null;
  pending: AccountRecord[];
  /** the active employers, searched by a text and paged */
  active: PagedList<AccountRecord, string>;
  /** reload everything (after a change that touches both lists, such as a domain deactivation) */
  reloadAll(): Promise<void>;
  removePending(id: number): void;
};

/** The admin dashboard's data: stats, pending and active lists load together; the active list then pages by itself. */
export function useAdminDashboard(): AdminDashboard {
  const active = usePagedList(adminApi.activeEmployers, { what: "active employers", filters: "" });
  const { claim: claimActive, currentQuery: activeQueryNow, clear: clearActive } = active;
  const { data, error, reload, setData } = useApi(
    async () => {
      const acceptActive = claimActive();
      const { filters: q, page } = activeQueryNow();
      try {
        const [stats, pending, activeAnswer] = await Promise.all([
          adminApi.stats(),
          adminApi.pendingAccounts(),
          adminApi.activeEmployers(q, page),
        ]);
        acceptActive(activeAnswer, page);
        return { stats, pending: Array.isArray(pending) ? pending : [] };
      } catch (failure) {
        clearActive();
        throw failure;
      }
    },
    [claimActive, activeQueryNow, clearActive],
    { what: "admin dashboard" },
  );

  const removePending = useCallback(
    (id: number) => setData((now) => now && { ...now, pending: now.pending.filter((account) => account.id !== id) }),
    [setData],
  );

  return {
    status: error ? "failed" : data ? "ready" : "loading",
    stats: data?.stats ?? null,
    pending: error ? [] : (data?.pending ?? []),
    active,
    reloadAll: reload,
    removePending,
  };
}

export const NO_AUDIT_FILTERS: AuditFilters = { actor: "", action: "", organisationId: "", from: "", to: "" };

/** The platform audit log, newest first, filtered and paged on the server. */
export function useAuditLog(refreshKey = 0) {
  return usePagedList(adminApi.audit, { what: "audit log", filters: NO_AUDIT_FILTERS, autoLoad: { refreshKey } });
}

/** Reported calls that reached no organisation, searched by number and paged. */
export function useUnroutedReports() {
  return usePagedList(adminApi.unroutedReports, { what: "reported calls", filters: "", autoLoad: { refreshKey: 0 } });
}
