import { WEBHOOK_EVENT_NAMES } from "@shared/webhooks";
import { send } from "@web/lib/api";
import { useApi } from "@web/lib/use-api";

export type WebhookEvent = (typeof WEBHOOK_EVENT_NAMES)[number];

/** The events of a saved endpoint that this page offers (the answer names them as strings). */
export const knownEvents = (events: string[]): WebhookEvent[] =>
  WEBHOOK_EVENT_NAMES.filter((name) => events.includes(name));

/** The webhooks feature's calls: the endpoint, its recent deliveries, saving, removing and a test event. */
export const webhooksApi = {
  webhook: (signal?: AbortSignal) => send("getWebhook", { signal }),
  deliveries: (signal?: AbortSignal) => send("listWebhookDeliveries", { signal }),
  save: (url: string, events: WebhookEvent[]) => send("saveWebhook", { body: { url, events } }),
  remove: () => send("removeWebhook"),
  test: () => send("testWebhook"),
};

/** The endpoint and its recent deliveries, loaded together. */
export function useWebhook() {
  return useApi(
    async (signal) => {
      const [endpoint, deliveries] = await Promise.all([webhooksApi.webhook(signal), webhooksApi.deliveries(signal)]);
      return { endpoint, deliveries };
    },
    [],
    { what: "webhook" },
  );
}
