import { Page } from "../../../components/ui/page";

/** Placeholder: the widget snippets (spec §2 /download). The route guard already shows the not-authorized text to visitors not signed in. */
export function DownloadPage() {
  return (
    <Page title="Add the widget">
      <p className="muted">This page is coming soon.</p>
    </Page>
  );
}
