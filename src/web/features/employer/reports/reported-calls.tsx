import { REPORTS_TEXT } from "@shared/reports";
import { ReportsTable } from "@web/components/ui/reports-table";
import { reportsApi, useReportedCalls } from "./api";

/** Calls customers reported from the organisation's sites, with a CSV download. */
export function ReportedCalls({ refreshKey }: { refreshKey: number }) {
  const reports = useReportedCalls(refreshKey);
  return (
    <>
      <p className="muted">{REPORTS_TEXT.employerIntro}</p>
      <ReportsTable label={REPORTS_TEXT.employerTitle} reports={reports} />
      <p>
        <a className="button button--secondary" href={reportsApi.csvHref()} download>
          {REPORTS_TEXT.export}
        </a>
      </p>
    </>
  );
}
