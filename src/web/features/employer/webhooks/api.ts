import { WEBHOOK_EVENT_NAMES } from "@shared/webhooks";
import { call, client } from "@web/lib/api";
import { useApi } from "@web/lib/use-api";

export type WebhookEvent = (typeof WEBHOOK_EVENT_NAMES)[number];

/** The events of a saved endpoint that this page offers (the answer names them as strings). */
export const knownEvents = (events: string[]): WebhookEvent[] =>
  WEBHOOK_EVENT_NAMES.filter((name) => events.includes(name));

/** The webhooks feature's calls: the endpoint, its recent deliveries, saving, removing and a test event. */
export const webhooksApi = {
  webhook: (signal?: AbortSignal) => call(client.GET("/api/employer/webhook", { signal })),
  deliveries: (signal?: AbortSignal) => call(client.GET("/api/employer/webhook/deliveries", { signal })),
  save: (url: string, events: WebhookEvent[]) => call(client.PUT("/api/employer/webhook", { body: { url, events } })),
  remove: () => call(client.DELETE("/api/employer/webhook")),
  test: () => call(client.POST("/api/employer/webhook/test")),
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
