import { REPORTS_TEXT } from "@shared/reports";
import { ReportsTable } from "@web/components/ui/reports-table";
import { useUnroutedReports } from "../api";

/** Reports sent from CallProof's own site or a site no organisation has proved: the platform's to look at. */
export function UnroutedReports() {
  const reports = useUnroutedReports();
  return (
    <section className="admin-section" aria-labelledby="unrouted-reports-title">
      <h2 id="unrouted-reports-title">{REPORTS_TEXT.adminTitle}</h2>
      <p className="muted">{REPORTS_TEXT.adminIntro}</p>
      <ReportsTable label={REPORTS_TEXT.employerTitle} reports={reports} />
    </section>
  );
}
