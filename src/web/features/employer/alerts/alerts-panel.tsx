import { ALERT_LIMITS, ALERTS_TEXT, alertSettingsBody } from "@shared/alerts";
import { DataTable } from "@web/components/ui/data-table";
import { FormError } from "@web/components/ui/form-error";
import { SubmitButton } from "@web/components/ui/submit-button";
import { TextField } from "@web/components/ui/text-field";
import type { FormEvent } from "react";
import { Checkbox, Loaded, PanelStatus, usePanelForm } from "../components/panel";
import { alertsApi, useAlerts } from "./api";

const dateTime = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "short" });
const time = new Intl.DateTimeFormat("en-GB", { timeStyle: "short" });

/** The thresholds' fields, in the form's order, with their labels. */
const THRESHOLDS = [
  ["failedLookups", ALERTS_TEXT.failedLookupsLabel],
  ["reports", ALERTS_TEXT.reportsLabel],
  ["deniedChecks", ALERTS_TEXT.deniedChecksLabel],
] as const;

/** The fraud team's alerts: the settings (on/off, thresholds) and the recent alerts, newest first. */
export function AlertsPanel({ refreshKey, onChanged }: { refreshKey: number; onChanged(): void }) {
  const alerts = useAlerts(refreshKey);
  // The form shows the settings as loaded (and as saved).
  const { form, fields, set, field, save, say, notice } = usePanelForm(
    { enabled: true, failedLookups: "", reports: "", deniedChecks: "" },
    {
      data: alerts.data,
      fill: ({ settings }) => ({
        enabled: settings.enabled,
        failedLookups: String(settings.failedLookupsPer10Minutes),
        reports: String(settings.reportsPerHour),
        deniedChecks: String(settings.deniedChecksPerHour),
      }),
      failed: ALERTS_TEXT.saveFailed,
    },
  );

  async function submit(event: FormEvent) {
    event.preventDefault();
    say(null);
    const whole = (text: string) => (/^\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN);
    const body = form.check(
      alertSettingsBody,
      {
        enabled: fields.enabled,
        failedLookupsPer10Minutes: whole(fields.failedLookups),
        reportsPerHour: whole(fields.reports),
        deniedChecksPerHour: whole(fields.deniedChecks),
      },
      ALERTS_TEXT.invalidThreshold,
    );
    if (body && (await save(async () => alerts.setData(await alertsApi.save(body)), ALERTS_TEXT.saved))) onChanged();
  }

  const c = ALERTS_TEXT.columns;
  return (
    <Loaded state={alerts} failed={ALERTS_TEXT.loadFailed}>
      {(answer) => (
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
          <form className="card alerts__form" onSubmit={submit} noValidate>
            <fieldset>
              <legend>{ALERTS_TEXT.settingsLegend}</legend>
              <Checkbox label={ALERTS_TEXT.enabled} checked={fields.enabled} onChange={set("enabled")} />
              {THRESHOLDS.map(([name, label]) => (
                <TextField
                  key={name}
                  label={label}
                  inputMode="numeric"
                  min={ALERT_LIMITS.minThreshold}
                  max={ALERT_LIMITS.maxThreshold}
                  {...field(name)}
                  required
                />
              ))}
            </fieldset>
            <FormError form={form} />
            <SubmitButton busy={form.busy} className="button button--primary">
              {ALERTS_TEXT.save}
            </SubmitButton>
            <PanelStatus notice={notice} />
          </form>
        </div>
      )}
    </Loaded>
  );
}
