import { paths } from "@shared/paths";
import { Link } from "react-router";
import { CallStatusSnippet } from "../sites/call-status-snippet";
import { SitesPanel } from "../sites/sites-panel";

/** Sites and widget: where the organisation's codes verify, and where to get the widget for them. */
export function SitesSection() {
  return (
    <section className="employer-section" aria-labelledby="sites-title">
      <h2 id="sites-title">Sites</h2>
      <p>
        <Link to={paths.download}>Add the widget</Link> to these sites so that your customers can check a caller.
      </p>
      <SitesPanel />
      <CallStatusSnippet />
    </section>
  );
}
