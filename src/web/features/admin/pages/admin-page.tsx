import { Page } from "../../../components/ui/page";

/** Placeholder: admin dashboard (spec §2 /admin). The route guard admits admin only. */
export function AdminPage() {
  return (
    <Page title="Admin dashboard">
      <p className="muted">This page is coming soon.</p>
    </Page>
  );
}
