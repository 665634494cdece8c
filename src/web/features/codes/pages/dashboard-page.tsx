import { Page } from "../../../components/ui/page";

/** Placeholder: identity code generation (spec §2 /dashboard). The route guard sends visitors not signed in to /login. */
export function DashboardPage() {
  return (
    <Page title="Generate Identity Code">
      <p className="muted">This page is coming soon.</p>
    </Page>
  );
}
