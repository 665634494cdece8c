import { Page } from "../../../components/ui/page";

/** Placeholder: employee registration form (spec §2 /employee-create-account). */
export function EmployeeCreateAccountPage() {
  return (
    <Page title="Create your employee account">
      <p className="muted">This page is coming soon.</p>
    </Page>
  );
}
