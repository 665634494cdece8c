import type { Stats } from "../api";

const number = new Intl.NumberFormat("en-GB");

/** Usage totals across the platform. */
export function StatsPanel({ stats }: { stats: Stats | null }) {
  return (
    <section className="admin-section" aria-labelledby="stats-title">
      <h2 id="stats-title">Usage</h2>
      <dl className="stats">
        <div className="stats__item">
          <dt>3-word IDs generated</dt>
          <dd>{stats ? number.format(stats.totalGenerated) : "—"}</dd>
        </div>
        <div className="stats__item">
          <dt>3-word IDs verified</dt>
          <dd>{stats ? number.format(stats.totalVerified) : "—"}</dd>
        </div>
      </dl>
    </section>
  );
}
