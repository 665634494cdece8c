import { ALERTS_TEXT } from "@shared/alerts";
import { DataTable } from "@web/components/ui/data-table";
import { Notice } from "@web/components/ui/notice";
import { errorMessage } from "@web/lib/api";
import { useTopNumbers } from "./api";

/** "Most reported numbers": the caller numbers reported most in the last 30 days, to have them blocked. */
export function TopNumbers({ refreshKey }: { refreshKey: number }) {
  const { data: numbers, error } = useTopNumbers(refreshKey);

  if (error) return <Notice tone="error">{errorMessage(error, ALERTS_TEXT.loadFailed)}</Notice>;
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
