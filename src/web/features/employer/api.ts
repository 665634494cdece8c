import type { ActivityDay } from "@shared/activity";
import type { AlertSettingsBody, AlertsAnswer, ReportedNumber } from "@shared/alerts";
import type { messageAnswer } from "@shared/answers";
import type { auditPage } from "@shared/audit";
import type {
  AccessCodeRecord,
  accessCodesAnswer,
  EmployeeRecord,
  employeesAnswer,
  employerProfile,
} from "@shared/employer";
import type { Page } from "@shared/paging";
import type { CallReport } from "@shared/reports";
import type { SiteCheckAnswer, SiteRecord } from "@shared/sites";
import type { SsoAnswer, SsoBody } from "@shared/sso";
import type { WebhookDelivery, webhookAnswer, webhookSavedAnswer } from "@shared/webhooks";
import { api, errorMessage } from "@web/lib/api";
import { type PagedList, queryString, usePagedList } from "@web/lib/paged-list";
import { useCallback, useEffect, useState } from "react";
import type { z } from "zod";

export type EmployerProfile = z.infer<typeof employerProfile>;

/** The employer dashboard's calls (lists page when asked for a page). */
export const employerApi = {
  me: () => api.get<EmployerProfile>("/api/employer/me"),
  employees: (q: string, page: number) =>
    api.get<z.infer<typeof employeesAnswer>>(`/api/employer/employees${queryString({ q, page })}`),
  accessCode: () => api.get<z.infer<typeof accessCodesAnswer>>("/api/employer/access-codes"),
  generateAccessCode: (maxUsers: number) =>
    api.post<AccessCodeRecord>("/api/employer/generate-access-code", { maxUsers }),
  deactivateEmployee: (id: number) =>
    api.post<z.infer<typeof messageAnswer>>(`/api/employer/deactivate-employee/${id}`),
  audit: (page: number) => api.get<z.infer<typeof auditPage>>(`/api/employer/audit${queryString({ page })}`),
  sites: () => api.get<SiteRecord[]>("/api/employer/sites"),
  addSite: (host: string) => api.post<SiteRecord>("/api/employer/sites", { host }),
  checkSite: (host: string) => api.post<SiteCheckAnswer>("/api/employer/sites/check", { host }),
  removeSite: (host: string) =>
    api.delete<z.infer<typeof messageAnswer>>(`/api/employer/sites/${encodeURIComponent(host)}`),
  reports: (q: string, page: number) => api.get<Page<CallReport>>(`/api/employer/reports${queryString({ q, page })}`),
  activity: () => api.get<ActivityDay[]>("/api/employer/activity"),
  webhook: () => api.get<z.infer<typeof webhookAnswer>>("/api/employer/webhook"),
  saveWebhook: (url: string, events: string[]) =>
    api.put<z.infer<typeof webhookSavedAnswer>>("/api/employer/webhook", { url, events }),
  removeWebhook: () => api.delete<z.infer<typeof messageAnswer>>("/api/employer/webhook"),
  webhookDeliveries: () => api.get<WebhookDelivery[]>("/api/employer/webhook/deliveries"),
  testWebhook: () => api.post<z.infer<typeof messageAnswer>>("/api/employer/webhook/test"),
  sso: () => api.get<SsoAnswer>("/api/employer/sso"),
  saveSso: (body: SsoBody) => api.put<NonNullable<SsoAnswer>>("/api/employer/sso", body),
  removeSso: () => api.delete<z.infer<typeof messageAnswer>>("/api/employer/sso"),
  alerts: () => api.get<AlertsAnswer>("/api/employer/alerts"),
  saveAlerts: (settings: AlertSettingsBody) => api.put<AlertsAnswer>("/api/employer/alerts", settings),
  topNumbers: () => api.get<ReportedNumber[]>("/api/employer/reports/top-numbers"),
};

/** The organisation's reported calls, searched by number and paged; read again when `refreshKey` changes. */
export function useReportedCalls(refreshKey: number) {
  return usePagedList(employerApi.reports, { what: "reported calls", filters: "", autoLoad: { refreshKey } });
}

/** The organisation's sites, loaded once and reloaded after each change. */
export function useSites() {
  const [sites, setSites] = useState<SiteRecord[] | null>(null);
  const [failure, setFailure] = useState<string | null>(null);

  const reload = useCallback(async () => {
    try {
      setSites(await employerApi.sites());
      setFailure(null);
    } catch (error) {
      console.error("Could not load the sites", error);
      setFailure(errorMessage(error, "The sites could not be loaded. Please reload the page."));
    }
  }, []);

  useEffect(() => {
    void reload();
  }, [reload]);

  return { sites, failure, reload };
}

export type EmployerDashboard = {
  status: "loading" | "ready" | "failed";
  /** the server's reason when loading failed */
  failure: string | null;
  profile: EmployerProfile | null;
  accessCode: AccessCodeRecord | null;
  /** the organisation's active users, searched by e-mail and paged */
  employees: PagedList<EmployeeRecord, string>;
  reloadAccessCode(): Promise<void>;
};

/** Profile, employees and the current access code load together; the employee list then pages by itself. */
export function useEmployerDashboard(): EmployerDashboard {
  const [status, setStatus] = useState<EmployerDashboard["status"]>("loading");
  const [failure, setFailure] = useState<string | null>(null);
  const [profile, setProfile] = useState<EmployerProfile | null>(null);
  const [accessCode, setAccessCode] = useState<AccessCodeRecord | null>(null);
  const employees = usePagedList(employerApi.employees, { what: "employees", filters: "" });
  const { claim: claimEmployees } = employees;

  useEffect(() => {
    let live = true;
    const acceptEmployees = claimEmployees();
    Promise.all([employerApi.me(), employerApi.employees("", 1), employerApi.accessCode()]).then(
      ([me, list, code]) => {
        if (!live) return;
        setProfile(me);
        acceptEmployees(list, 1);
        setAccessCode(code ?? null);
        setStatus("ready");
      },
      (error) => {
        if (!live) return;
        console.error("Could not load the employer dashboard", error);
        setFailure(errorMessage(error, "") || null);
        setStatus("failed");
      },
    );
    return () => {
      live = false;
    };
  }, [claimEmployees]);

  const reloadAccessCode = useCallback(async () => {
    try {
      setAccessCode((await employerApi.accessCode()) ?? null);
    } catch (error) {
      console.error("Could not reload the access code", error);
    }
  }, []);

  return {
    status,
    failure,
    profile,
    accessCode,
    employees,
    reloadAccessCode,
  };
}

const fetchAuditPage = (_filters: null, page: number) => employerApi.audit(page);

/** The organisation's audit events, newest first, paged. */
export function useOrganisationAudit(refreshKey: number, enabled: boolean) {
  return usePagedList(fetchAuditPage, { what: "audit events", filters: null, autoLoad: { refreshKey, enabled } });
}
