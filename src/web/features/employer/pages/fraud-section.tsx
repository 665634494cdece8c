import { ACTIVITY_TEXT } from "@shared/activity";
import { ALERTS_TEXT } from "@shared/alerts";
import { REPORTS_TEXT } from "@shared/reports";
import { useState } from "react";
import { ActivityPanel } from "../activity/activity-panel";
import { AlertsPanel } from "../alerts/alerts-panel";
import { ReportedCalls } from "../reports/reported-calls";
import { TopNumbers } from "../reports/top-numbers";

/** Fraud and reports: the calls customers reported, the most reported numbers, the alerts and the activity. */
export function FraudSection() {
  /** bumped after a change made here, so the other panels read again */
  const [changes, setChanges] = useState(0);
  const changed = () => setChanges((n) => n + 1);
  return (
    <>
      <section className="employer-section" aria-labelledby="reports-title">
        <h2 id="reports-title">{REPORTS_TEXT.employerTitle}</h2>
        <ReportedCalls refreshKey={changes} />
      </section>

      <section className="employer-section" aria-labelledby="top-numbers-title">
        <h2 id="top-numbers-title">{ALERTS_TEXT.topNumbersTitle}</h2>
        <TopNumbers refreshKey={changes} />
      </section>

      <section className="employer-section" aria-labelledby="alerts-title">
        <h2 id="alerts-title">{ALERTS_TEXT.title}</h2>
        <AlertsPanel refreshKey={changes} onChanged={changed} />
      </section>

      <section className="employer-section" aria-labelledby="activity-title">
        <h2 id="activity-title">{ACTIVITY_TEXT.title}</h2>
        <p className="muted">{ACTIVITY_TEXT.intro}</p>
        <ActivityPanel refreshKey={changes} />
      </section>
    </>
  );
}
