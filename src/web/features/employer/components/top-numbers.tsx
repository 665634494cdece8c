import { ALERTS_TEXT, type ReportedNumber } from "@shared/alerts";
import { DataTable } from "@web/components/ui/data-table";
import { Notice } from "@web/components/ui/notice";
import { errorMessage } from "@web/lib/api";
import { useEffect, useState } from "react";
import { employerApi } from "../api";

/** "Most reported numbers": the caller numbers reported most in the last 30 days, to have them blocked. */
export function TopNumbers({ refreshKey }: { refreshKey: number }) {
  const [numbers, setNumbers] = useState<ReportedNumber[] | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    void refreshKey;
    employerApi
      .topNumbers()
      .then((answer) => {
        if (!live) return;
        setNumbers(answer);
        setFailure(null);
      })
      .catch((error) => {
        if (!live) return;
        console.error("Could not load the most reported numbers", error);
        setFailure(errorMessage(error, ALERTS_TEXT.loadFailed));
      });
    return () => {
      live = false;
    };
  }, [refreshKey]);

  if (failure) return <Notice tone="error">{failure}</Notice>;
  if (!numbers) {
    return (
      <p className="muted" role="status">
        Loading…
      </p>
    );
  }
  const c = ALERTS_TEXT.topNumbersColumns;
  return (
    <>
      <p className="muted">{ALERTS_TEXT.topNumbersIntro}</p>
      <DataTable
        caption={ALERTS_TEXT.topNumbersCaption}
        head={
          <>
            <th scope="col">{c.number}</th>
            <th scope="col" className="data-table__num">
              {c.reports}
            </th>
          </>
        }
        columns={2}
        items={numbers}
        empty={ALERTS_TEXT.topNumbersNone}
        row={(n) => (
          <tr key={n.number}>
            <td>{n.number}</td>
            <td className="data-table__num">{n.reports}</td>
          </tr>
        )}
      />
    </>
  );
}
