import { ALERT_LIMITS, ALERTS_TEXT, alertSettingsBody } from "@shared/alerts";
import { DataTable } from "@web/components/ui/data-table";
import { FormError } from "@web/components/ui/form-error";
import { Notice } from "@web/components/ui/notice";
import { SubmitButton } from "@web/components/ui/submit-button";
import { TextField } from "@web/components/ui/text-field";
import { errorMessage } from "@web/lib/api";
import { useSubmit } from "@web/lib/use-submit";
import { type FormEvent, useEffect, useState } from "react";
import { alertsApi, useAlerts } from "./api";

const dateTime = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "short" });
const time = new Intl.DateTimeFormat("en-GB", { timeStyle: "short" });

/** The fraud team's alerts: the settings (on/off, thresholds) and the recent alerts, newest first. */
export function AlertsPanel({ refreshKey, onChanged }: { refreshKey: number; onChanged(): void }) {
  const alerts = useAlerts(refreshKey);
  const answer = alerts.data;
  const [enabled, setEnabled] = useState(true);
  const [failedLookups, setFailedLookups] = useState("");
  const [reports, setReports] = useState("");
  const [deniedChecks, setDeniedChecks] = useState("");
  const [notice, setNotice] = useState<string | null>(null);
  const form = useSubmit();

  // The form shows the settings as loaded (and as saved).
  const settings = answer?.settings;
  useEffect(() => {
    if (!settings) return;
    setEnabled(settings.enabled);
    setFailedLookups(String(settings.failedLookupsPer10Minutes));
    setReports(String(settings.reportsPerHour));
    setDeniedChecks(String(settings.deniedChecksPerHour));
  }, [settings]);

  async function save(event: FormEvent) {
    event.preventDefault();
    setNotice(null);
    const whole = (text: string) => (/^\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN);
    const body = form.check(
      alertSettingsBody,
      {
        enabled,
        failedLookupsPer10Minutes: whole(failedLookups),
        reportsPerHour: whole(reports),
        deniedChecksPerHour: whole(deniedChecks),
      },
      ALERTS_TEXT.invalidThreshold,
    );
    if (!body) return;
    const ok = await form.run(async () => alerts.setData(await alertsApi.save(body)), {
      failed: ALERTS_TEXT.saveFailed,
    });
    if (ok) {
      setNotice(ALERTS_TEXT.saved);
      onChanged();
    }
  }

  if (alerts.error) return <Notice tone="error">{errorMessage(alerts.error, ALERTS_TEXT.loadFailed)}</Notice>;
  if (!answer) {
    return (
      <p className="muted" role="status">
        Loading…
      </p>
    );
  }
  const c = ALERTS_TEXT.columns;
  return (
    <div className="alerts">
      <p className="muted">{ALERTS_TEXT.intro}</p>
      <DataTable
        caption={ALERTS_TEXT.recentCaption}
        head={
          <>
            <th scope="col">{c.at}</th>
            <th scope="col">{c.kind}</th>
            <th scope="col" className="data-table__num">
              {c.count}
            </th>
            <th scope="col">{c.window}</th>
          </>
        }
        columns={4}
        items={answer.recent}
        empty={ALERTS_TEXT.none}
        row={(a) => (
          <tr key={a.id}>
            <td className="data-table__nowrap">
              <time dateTime={a.at}>{dateTime.format(new Date(a.at))}</time>
            </td>
            <td>{ALERTS_TEXT.kinds[a.kind]}</td>
            <td className="data-table__num">{a.count}</td>
            <td className="data-table__nowrap">
              <time dateTime={a.windowStart}>{time.format(new Date(a.windowStart))}</time>–
              <time dateTime={a.windowEnd}>{time.format(new Date(a.windowEnd))}</time>
            </td>
          </tr>
        )}
      />
      <form className="card alerts__form" onSubmit={save} noValidate>
        <fieldset>
          <legend>{ALERTS_TEXT.settingsLegend}</legend>
          <label className="checkbox">
            <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />{" "}
            {ALERTS_TEXT.enabled}
          </label>
          <TextField
            label={ALERTS_TEXT.failedLookupsLabel}
            inputMode="numeric"
            min={ALERT_LIMITS.minThreshold}
            max={ALERT_LIMITS.maxThreshold}
            value={failedLookups}
            onChange={(e) => setFailedLookups(e.target.value)}
            describedBy={form.describedBy}
            required
          />
          <TextField
            label={ALERTS_TEXT.reportsLabel}
            inputMode="numeric"
            min={ALERT_LIMITS.minThreshold}
            max={ALERT_LIMITS.maxThreshold}
            value={reports}
            onChange={(e) => setReports(e.target.value)}
            describedBy={form.describedBy}
            required
          />
          <TextField
            label={ALERTS_TEXT.deniedChecksLabel}
            inputMode="numeric"
            min={ALERT_LIMITS.minThreshold}
            max={ALERT_LIMITS.maxThreshold}
            value={deniedChecks}
            onChange={(e) => setDeniedChecks(e.target.value)}
            describedBy={form.describedBy}
            required
          />
        </fieldset>
        <FormError form={form} />
        <SubmitButton busy={form.busy} className="button button--primary">
          {ALERTS_TEXT.save}
        </SubmitButton>
        {notice && <p role="status">{notice}</p>}
      </form>
    </div>
  );
}
