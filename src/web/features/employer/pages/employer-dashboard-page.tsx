import { Page } from "../../../components/ui/page";

/** Placeholder: employer dashboard (spec §2 /employer-dashboard). The route guard admits admin and superuser only. */
export function EmployerDashboardPage() {
  return (
    <Page title="Employer dashboard">
      <p className="muted">This page is coming soon.</p>
    </Page>
  );
}
