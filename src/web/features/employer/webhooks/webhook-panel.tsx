import { ERROR_CODES } from "@shared/error-codes";
import { WEBHOOK_EVENT_NAMES, WEBHOOK_TEXT, type WebhookHealth } from "@shared/webhooks";
import { ConfirmButton } from "@web/components/ui/confirm-button";
import { CopyableValue } from "@web/components/ui/copyable-value";
import { DataTable } from "@web/components/ui/data-table";
import { FormError } from "@web/components/ui/form-error";
import { Notice } from "@web/components/ui/notice";
import { SubmitButton } from "@web/components/ui/submit-button";
import { TextField } from "@web/components/ui/text-field";
import { type FormEvent, useEffect, useState } from "react";
import { CheckboxGroup, Loaded, PanelStatus, SignInAgain, usePanelForm } from "../components/panel";
import { knownEvents, useWebhook, type WebhookEvent, webhooksApi } from "./api";

const dateTime = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "medium" });

/**
 * The organisation's webhook: the endpoint and its events, the signing secret shown once after saving,
 * "Send test event", and the recent deliveries (read again every few seconds while one is pending).
 */
export function WebhookPanel() {
  const webhook = useWebhook();
  const endpoint = webhook.data?.endpoint;
  const deliveries = webhook.data?.deliveries ?? [];
  const { reload } = webhook;
  const [secret, setSecret] = useState<string | null>(null);
  // The form starts from the saved endpoint, once.
  const { form, fields, set, field, save, act, notice } = usePanelForm(
    { url: "", events: [...WEBHOOK_EVENT_NAMES] as WebhookEvent[] },
    {
      data: webhook.data,
      fill: ({ endpoint }) => (endpoint ? { url: endpoint.url, events: knownEvents(endpoint.events) } : undefined),
      once: true,
      failed: WEBHOOK_TEXT.actionFailed,
    },
  );

  const pending = deliveries.some((d) => d.status === "pending") || endpoint?.health.state === "paused";
  useEffect(() => {
    if (!pending) return;
    const timer = setInterval(() => void reload(), 3000);
    return () => clearInterval(timer);
  }, [pending, reload]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (fields.events.length === 0) return form.setError(WEBHOOK_TEXT.noEvents);
    const saved = await save(async () => {
      const answer = await webhooksApi.save(fields.url.trim(), fields.events);
      setSecret(answer.secret);
      set("url")(answer.url);
    });
    if (saved) await reload();
  }

  const remove = () =>
    act(async () => {
      await webhooksApi.remove();
      setSecret(null);
      await reload();
      return WEBHOOK_TEXT.removed;
    });

  const sendTest = () =>
    act(async () => {
      const answer = await webhooksApi.test();
      await reload();
      return answer.message;
    });

  const c = WEBHOOK_TEXT.columns;
  return (
    <Loaded state={webhook} failed={WEBHOOK_TEXT.loadFailed}>
      {() => (
        <div className="webhook">
          <p className="muted">{WEBHOOK_TEXT.intro}</p>
          <form className="card webhook__form" onSubmit={submit} noValidate>
            <TextField
              label={WEBHOOK_TEXT.urlLabel}
              hint={WEBHOOK_TEXT.urlHint}
              type="url"
              inputMode="url"
              autoComplete="off"
              spellCheck={false}
              maxLength={2000}
              {...field("url")}
              required
            />
            <CheckboxGroup
              legend={WEBHOOK_TEXT.eventsLegend}
              className="webhook__events"
              options={WEBHOOK_EVENT_NAMES}
              chosen={fields.events}
              onChange={set("events")}
              label={(name) => <code>{name}</code>}
            />
            <FormError form={form}>
              {form.errorCode === ERROR_CODES.recentSignInRequired && (
                <>
                  {" "}
                  <SignInAgain label={WEBHOOK_TEXT.signInAgain} />
                </>
              )}
            </FormError>
            <SubmitButton busy={form.busy} className="button button--primary">
              {WEBHOOK_TEXT.save}
            </SubmitButton>
          </form>

          {secret && (
            <Notice tone="success">
              <p>{WEBHOOK_TEXT.saved}</p>
              <CopyableValue label={WEBHOOK_TEXT.secretLabel} value={secret} />
            </Notice>
          )}
          {endpoint && !secret && <p className="muted">{WEBHOOK_TEXT.secretHint(endpoint.secretHint)}</p>}
          {endpoint && <EndpointHealth health={endpoint.health} />}
          <PanelStatus notice={notice} className="webhook__notice" />

          {endpoint && (
            <div className="webhook__actions">
              <button type="button" className="button button--secondary" onClick={() => void sendTest()}>
                {WEBHOOK_TEXT.sendTest}
              </button>
              <ConfirmButton label={WEBHOOK_TEXT.remove} subject={endpoint.url} onConfirm={remove} />
            </div>
          )}

          <DataTable
            caption={WEBHOOK_TEXT.deliveriesTitle}
            head={
              <>
                <th scope="col">{c.at}</th>
                <th scope="col">{c.event}</th>
                <th scope="col">{c.status}</th>
                <th scope="col" className="data-table__num">
                  {c.attempts}
                </th>
                <th scope="col">{c.result}</th>
              </>
            }
            columns={5}
            items={deliveries}
            empty={WEBHOOK_TEXT.noDeliveries}
            row={(d) => (
              <tr key={d.id}>
                <td className="data-table__nowrap">
                  <time dateTime={d.createdAt}>{dateTime.format(new Date(d.createdAt))}</time>
                </td>
                <td>
                  <code>{d.eventType}</code>
                </td>
                <td>
                  <span className={`outcome outcome--${d.status === "delivered" ? "ok" : "other"}`}>
                    {WEBHOOK_TEXT.status[d.status]}
                  </span>
                </td>
                <td className="data-table__num">{d.attempts}</td>
                <td className="data-table__text">{d.lastError ?? (d.lastStatus ? `HTTP ${d.lastStatus}` : "—")}</td>
              </tr>
            )}
          />
        </div>
      )}
    </Loaded>
  );
}

/** The circuit breaker's state: healthy, failing (probation), or paused as a whole until a time. */
function EndpointHealth({ health }: { health: WebhookHealth }) {
  const text =
    health.state === "paused" && health.pausedUntil
      ? WEBHOOK_TEXT.paused(health.consecutiveFailures, dateTime.format(new Date(health.pausedUntil)))
      : health.state === "failing"
        ? WEBHOOK_TEXT.failing(health.consecutiveFailures)
        : WEBHOOK_TEXT.healthy;
  return (
    <section className="webhook__health" aria-label={WEBHOOK_TEXT.healthTitle}>
      {health.state === "healthy" ? (
        <p className="muted">{text}</p>
      ) : (
        <Notice tone={health.state === "paused" ? "error" : "info"}>{text}</Notice>
      )}
    </section>
  );
}
