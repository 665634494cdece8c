import type { AccountRecord, statsAnswer } from "@shared/admin";
import type { auditPage } from "@shared/audit";
import { apiHref, queryOf, send } from "@web/lib/api";
import { type PagedList, usePagedList } from "@web/lib/paged-list";
import { useCallback, useEffect, useRef, useState } from "react";
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
  const [status, setStatus] = useState<AdminDashboard["status"]>("loading");
  const [stats, setStats] = useState<Stats | null>(null);
  const [pending, setPending] = useState<AccountRecord[]>([]);
  const active = usePagedList(adminApi.activeEmployers, { what: "active employers", filters: "" });
  const { claim: claimActive, currentQuery: activeQueryNow, clear: clearActive } = active;
  /** answers of requests older than the newest one are dropped */
  const allRequest = useRef(0);

  const reloadAll = useCallback(async () => {
    const id = ++allRequest.current;
    const acceptActive = claimActive();
    const { filters: q, page } = activeQueryNow();
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
    active,
    reloadAll,
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
