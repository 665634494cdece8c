import { useCallback, useEffect, useRef, useState } from "react";
import type { Page } from "../../../shared/admin";
import type { AuditEntry } from "../../../shared/audit";
import { PAGE_SIZE } from "../../../shared/constants";
import type { AccessCodeRecord, EmployeeRecord } from "../../../shared/employer";
import { api, errorMessage } from "../../lib/api";

export type EmployerProfile = { companyName: string; email: string; website: string };

function queryString(values: Record<string, string | number>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) {
    const text = String(value).trim();
    if (text) params.set(key, text);
  }
  const query = params.toString();
  return query ? `?${query}` : "";
}

/** A list endpoint answers a page when asked for one; should it answer the whole array, page it here. */
function asPage<T>(answer: T[] | Page<T>, page: number): Page<T> {
  if (!Array.isArray(answer)) return answer;
  const pages = Math.max(1, Math.ceil(answer.length / PAGE_SIZE));
  const current = Math.min(Math.max(1, page), pages);
  return {
    items: answer.slice((current - 1) * PAGE_SIZE, current * PAGE_SIZE),
    total: answer.length,
    page: current,
    pageSize: PAGE_SIZE,
    pages,
  };
}

const EMPTY_PAGE: Page<EmployeeRecord> = { items: [], total: 0, page: 1, pageSize: PAGE_SIZE, pages: 1 };

/** The employer dashboard's calls (CONTRACT.md, HTTP API; paging as in src/shared/employer.ts). */
export const employerApi = {
  me: () => api.get<EmployerProfile>("/api/employer/me"),
  employees: (q: string, page: number) =>
    api.get<EmployeeRecord[] | Page<EmployeeRecord>>(`/api/employer/employees${queryString({ q, page })}`),
  accessCode: () => api.get<AccessCodeRecord | null>("/api/employer/access-codes"),
  generateAccessCode: (maxUsers: number) =>
    api.post<AccessCodeRecord>("/api/employer/generate-access-code", { maxUsers }),
  deactivateEmployee: (id: number) => api.post<{ message?: string }>(`/api/employer/deactivate-employee/${id}`),
  audit: (page: number) => api.get<Page<AuditEntry>>(`/api/employer/audit${queryString({ page })}`),
};

export type EmployerDashboard = {
  status: "loading" | "ready" | "failed";
  /** the server's reason when loading failed */
  failure: string | null;
  profile: EmployerProfile | null;
  accessCode: AccessCodeRecord | null;
  employees: Page<EmployeeRecord>;
  employeesQuery: { q: string; page: number };
  employeesLoading: boolean;
  searchEmployees(q: string): void;
  showEmployeesPage(page: number): void;
  reloadEmployees(): Promise<void>;
  reloadAccessCode(): Promise<void>;
};

/** Profile, employees and the current access code load together; the employee list then pages by itself. */
export function useEmployerDashboard(): EmployerDashboard {
  const [status, setStatus] = useState<EmployerDashboard["status"]>("loading");
  const [failure, setFailure] = useState<string | null>(null);
  const [profile, setProfile] = useState<EmployerProfile | null>(null);
  const [accessCode, setAccessCode] = useState<AccessCodeRecord | null>(null);
  const [employees, setEmployees] = useState<Page<EmployeeRecord>>(EMPTY_PAGE);
  const [employeesQuery, setEmployeesQuery] = useState({ q: "", page: 1 });
  const [employeesLoading, setEmployeesLoading] = useState(false);
  const queryRef = useRef(employeesQuery);
  queryRef.current = employeesQuery;
  const employeesRequest = useRef(0);

  useEffect(() => {
    let live = true;
    const id = ++employeesRequest.current;
    Promise.all([employerApi.me(), employerApi.employees("", 1), employerApi.accessCode()]).then(
      ([me, list, code]) => {
        if (!live) return;
        setProfile(me);
        if (id === employeesRequest.current) setEmployees(asPage(list, 1));
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
  }, []);

  const loadEmployees = useCallback(async function load(q: string, page: number): Promise<void> {
    const id = ++employeesRequest.current;
    setEmployeesLoading(true);
    try {
      const answer = asPage(await employerApi.employees(q, page), page);
      if (id !== employeesRequest.current) return;
      // The page went past the end (the list shrank): show the last one instead.
      if (answer.items.length === 0 && page > 1 && answer.pages < page) {
        setEmployeesQuery({ q, page: answer.pages });
        return load(q, answer.pages);
      }
      setEmployees(answer);
      if (answer.page !== page) setEmployeesQuery({ q, page: answer.page });
    } catch (error) {
      if (id !== employeesRequest.current) return;
      console.error("Could not load the employees", error);
      setEmployees(EMPTY_PAGE);
    } finally {
      if (id === employeesRequest.current) setEmployeesLoading(false);
    }
  }, []);

  const searchEmployees = useCallback(
    (q: string) => {
      setEmployeesQuery({ q, page: 1 });
      void loadEmployees(q, 1);
    },
    [loadEmployees],
  );

  const showEmployeesPage = useCallback(
    (page: number) => {
      setEmployeesQuery({ q: queryRef.current.q, page });
      void loadEmployees(queryRef.current.q, page);
    },
    [loadEmployees],
  );

  const reloadEmployees = useCallback(() => loadEmployees(queryRef.current.q, queryRef.current.page), [loadEmployees]);

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
    employeesQuery,
    employeesLoading,
    searchEmployees,
    showEmployeesPage,
    reloadEmployees,
    reloadAccessCode,
  };
}

/** The organisation's audit events, newest first, paged. */
export function useOrganisationAudit(refreshKey: number, enabled: boolean) {
  const [pageNumber, setPageNumber] = useState(1);
  const [page, setPage] = useState<Page<AuditEntry> | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!enabled) return;
    let live = true;
    void refreshKey; // a change elsewhere on the page: read the events again
    setLoading(true);
    employerApi.audit(pageNumber).then(
      (answer) => {
        if (!live) return;
        setPage(answer);
        setError(null);
        setLoading(false);
      },
      (err) => {
        if (!live) return;
        console.error("Could not load the audit events", err);
        setPage(null);
        setError(errorMessage(err, "Could not load the audit events. Please try again."));
        setLoading(false);
      },
    );
    return () => {
      live = false;
    };
  }, [pageNumber, refreshKey, enabled]);

  return { page, loading, error, showPage: setPageNumber };
}
