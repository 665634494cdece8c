import { ACTIVITY_TEXT, type ActivityDay } from "@shared/activity";
import { DataTable } from "@web/components/ui/data-table";

type Series = keyof typeof ACTIVITY_TEXT.series;
const SERIES = Object.keys(ACTIVITY_TEXT.series) as Series[];

const WIDTH = 300;
const HEIGHT = 48;

/**
 * The last 30 days as small multiples: one row of bars per series, each scaled to its own largest day,
 * drawn in plain SVG (no chart library). The SVG is one image with a text summary; the numbers
 * themselves are in the table below it.
 */
export default function ActivityChart({ days }: { days: ActivityDay[] }) {
  const totals = SERIES.map((s) => `${ACTIVITY_TEXT.series[s]} ${days.reduce((n, d) => n + d[s], 0)}`).join(", ");
  const slot = WIDTH / Math.max(1, days.length);
  return (
    <figure className="activity">
      <div className="activity__rows">
        {SERIES.map((series) => {
          const max = Math.max(1, ...days.map((d) => d[series]));
          const total = days.reduce((n, d) => n + d[series], 0);
          return (
            <div key={series} className="activity__row">
              <p className="activity__label">
                {ACTIVITY_TEXT.series[series]} <strong>{total}</strong>
              </p>
              <svg
                className={`activity__bars activity__bars--${series}`}
                viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
                preserveAspectRatio="none"
                aria-hidden="true"
                focusable="false"
              >
                <line x1="0" y1={HEIGHT - 0.5} x2={WIDTH} y2={HEIGHT - 0.5} className="activity__axis" />
                {days.map((d, i) => {
                  const h = d[series] === 0 ? 0 : Math.max(2, (d[series] / max) * (HEIGHT - 4));
                  return <rect key={d.day} x={i * slot + 1} y={HEIGHT - 1 - h} width={slot - 2} height={h} />;
                })}
              </svg>
            </div>
          );
        })}
      </div>
      <figcaption className="muted">
        {ACTIVITY_TEXT.chartLabel(totals)}. {days[0]?.day} to {days[days.length - 1]?.day}.
      </figcaption>
      <details className="activity__table">
        <summary>{ACTIVITY_TEXT.showTable}</summary>
        <DataTable
          caption={ACTIVITY_TEXT.title}
          head={
            <>
              <th scope="col">{ACTIVITY_TEXT.day}</th>
              {SERIES.map((s) => (
                <th key={s} scope="col" className="data-table__num">
                  {ACTIVITY_TEXT.series[s]}
                </th>
              ))}
            </>
          }
          columns={5}
          items={days}
          empty=""
          row={(d) => (
            <tr key={d.day}>
              <th scope="row" className="data-table__nowrap">
                {d.day}
              </th>
              {SERIES.map((s) => (
                <td key={s} className="data-table__num">
                  {d[s]}
                </td>
              ))}
            </tr>
          )}
        />
      </details>
    </figure>
  );
}
