import { Page } from "../../../components/ui/page";

/** Placeholder: the verification widget (spec §2 /in-a-call). */
export function InACallPage() {
  return (
    <Page title="In a call?">
      <p className="muted">This page is coming soon.</p>
    </Page>
  );
}
