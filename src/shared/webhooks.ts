import { z } from "zod";

export const WEBHOOK_EVENT_NAMES = [
  "code.verified",
  "call.reported",
  "alert.raised",
  "call.started",
  "call.ended",
  "customer-check.requested",
  "customer-check.answered",
] as const;
export const WEBHOOK_URL_MAX = 2000;

export const WEBHOOK_TEXT = {
  title: "Webhook",
  intro:
    "CallProof can send events to your own systems: code.verified when a customer verifies an employee's code, call.reported when a customer reports a call, alert.raised when an alert is raised. Deliveries are signed (Standard Webhooks) and retried for 24 hours.",
  urlLabel: "Endpoint URL",
  urlHint: "https://… (plain http and other ports than 443 and 80 only for hosts the server's operator allows)",
  eventsLegend: "Events",
  save: "Save endpoint",
  saving: "Saving...",
  saved: "Saved. This is the signing secret: copy it now, it is shown only once.",
  secretLabel: "Signing secret",
  secretHint: (hint: string) => `Signing secret ending in ${hint}. Saving again issues a new secret.`,
  remove: "Remove endpoint",
  removeConfirm: "Remove the webhook endpoint? Pending deliveries are dropped.",
  removed: "Webhook endpoint removed.",
  sendTest: "Send test event",
  testQueued: "Test event queued: it appears below in a moment.",
  deliveriesTitle: "Recent deliveries",
  noDeliveries: "No deliveries yet.",
  columns: { at: "When", event: "Event", status: "Status", attempts: "Attempts", result: "Last result" },
  status: { pending: "Pending", delivered: "Delivered", failed: "Failed" },
  // refusals
  urlInvalid: "Enter a full URL starting with https://.",
  urlTooLong: `The URL must be at most ${WEBHOOK_URL_MAX} characters.`,
  urlNotHttps:
    "The URL must start with https:// (plain http only for hosts the server's operator allows in OUTBOUND_ALLOWED_HOSTS).",
  urlCredentials: "The URL must not contain a user name or password.",
  urlPrivate:
    "This server may not connect to the URL's address: loopback, private and link-local addresses need its operator's permission (OUTBOUND_ALLOWED_HOSTS).",
  urlPort: "Only ports 443 and 80 are allowed, unless the server's operator allows this host (OUTBOUND_ALLOWED_HOSTS).",
  urlUnresolved: "The URL's host name could not be resolved: check the URL.",
  needsRecentSignIn:
    "For your security, changing the webhook URL needs a sign-in from the last 15 minutes. Sign out, sign in again, then save the new URL.",
  signInAgain: "Sign out to sign in again",
  noEvents: "Choose at least one event.",
  noEndpoint: "No webhook endpoint is set.",
  tooManyTests: "Too many test events. Please wait a minute.",
  loadFailed: "Failed to load the webhook settings. Please try again.",
  // the circuit breaker
  healthTitle: "Endpoint status",
  healthy: "Healthy: deliveries go out as events happen.",
  failing: (n: number) =>
    `Failing: the last ${n === 1 ? "attempt" : `${n} attempts`} failed. Deliveries are retried one at a time.`,
  paused: (n: number, until: string) =>
    `Paused: the endpoint failed ${n} times in a row, so deliveries to it are held until ${until} and then retried one at a time. Events are kept meanwhile. "Send test event" still goes out at once, and a successful delivery or saving the endpoint resumes them.`,
  actionFailed: "That did not work. Please try again.",
} as const;

export const webhookBody = z.object({
  url: z
    .string({ error: WEBHOOK_TEXT.urlInvalid })
    .trim()
    .min(1, WEBHOOK_TEXT.urlInvalid)
    .max(WEBHOOK_URL_MAX, WEBHOOK_TEXT.urlTooLong),
  events: z.array(z.enum(WEBHOOK_EVENT_NAMES)).max(WEBHOOK_EVENT_NAMES.length).min(1, WEBHOOK_TEXT.noEvents).optional(),
});

/** The endpoint's circuit breaker: `paused` (circuit open) until `pausedUntil`, `failing` while on probation. */
export const webhookHealth = z.object({
  state: z.enum(["healthy", "failing", "paused"]),
  consecutiveFailures: z.number(),
  pausedUntil: z.string().nullable(),
});
export type WebhookHealth = z.infer<typeof webhookHealth>;

export const webhookAnswer = z
  .object({ url: z.string(), events: z.array(z.string()), secretHint: z.string(), health: webhookHealth })
  .nullable();

export const webhookSavedAnswer = z.object({ url: z.string(), events: z.array(z.string()), secret: z.string() });

export const webhookDelivery = z.object({
  id: z.number(),
  messageId: z.string(),
  eventType: z.string(),
  status: z.enum(["pending", "delivered", "failed"]),
  attempts: z.number(),
  createdAt: z.string(),
  lastAttemptAt: z.string().nullable(),
  lastStatus: z.number().nullable(),
  lastError: z.string().nullable(),
  nextAttemptAt: z.string().nullable(),
});
export type WebhookDelivery = z.infer<typeof webhookDelivery>;

export const webhookDeliveriesAnswer = z.array(webhookDelivery);
