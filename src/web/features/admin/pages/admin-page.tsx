import { Notice } from "@web/components/ui/notice";
import { Page } from "@web/components/ui/page";
import { useState } from "react";
import { useAdminDashboard } from "../api";
import { ActiveEmployers } from "../components/active-employers";
import { AuditLogSection } from "../components/audit-log";
import { DeactivatedOrganisations } from "../components/deactivated-organisations";
import { DomainDeactivation } from "../components/domain-deactivation";
import { EmployerCodeForm } from "../components/employer-code-form";
import { PendingAccounts } from "../components/pending-accounts";
import { StatsPanel } from "../components/stats-panel";
import { UnroutedReports } from "../components/unrouted-reports";
import "../admin.css";

/** The platform admin's dashboard (/admin). The route guard admits admin only; the server checks every call. */
export function AdminPage() {
  const dashboard = useAdminDashboard();
  const loading = dashboard.status === "loading";
  const failed = dashboard.status === "failed";
  /** bumped after each change made here, so the audit log shows it */
  const [changes, setChanges] = useState(0);
  const changed = () => setChanges((n) => n + 1);

  function activated(id: number) {
    dashboard.removePending(id);
    void dashboard.active.reload();
    changed();
  }

  return (
    <Page title="Admin dashboard">
      {failed && (
        <Notice tone="error">
          Could not load the dashboard data, so the lists below are empty. Please reload the page to try again.
        </Notice>
      )}
      <StatsPanel stats={dashboard.stats} />
      <EmployerCodeForm onGenerated={changed} />
      <PendingAccounts accounts={dashboard.pending} loading={loading} failed={failed} onActivated={activated} />
      <ActiveEmployers
        employers={dashboard.active}
        loading={loading}
        failed={failed}
        onDeactivated={() => {
          void dashboard.active.reload();
          changed();
        }}
      />
      <DomainDeactivation
        onDone={() => {
          void dashboard.reloadAll();
          changed();
        }}
      />
      <DeactivatedOrganisations
        refreshKey={changes}
        onReactivated={() => {
          void dashboard.reloadAll();
          changed();
        }}
      />
      <UnroutedReports />
      <AuditLogSection refreshKey={changes} />
    </Page>
  );
}
