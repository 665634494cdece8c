import { type Actor, auditActor, type Deps } from "@server/context";
import { assertRecentSignIn } from "@server/features/account";
import { organisationFor } from "@server/features/organisations";
import { seal, unseal } from "@server/lib/crypto";
import { checkOutboundUrl, OUTBOUND_TEXT, OutboundError } from "@server/lib/outbound";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { WEBHOOK_EVENT_NAMES, WEBHOOK_TEXT, type WebhookDelivery } from "@shared/webhooks";
import { webhookErrors } from "./errors";
import * as repo from "./repository";
import { postDelivery } from "./sender";
import { newWebhookSecret, signedHeaders } from "./signature";

/**
 * An endpoint URL: http(s) without credentials that OUTBOUND_ALLOWED_HOSTS accepts: https unless the
 * operator allows the host (loopback, private, by name or by range), ports 443 and 80 unless the same,
 * and no address the policy refuses (a name is looked up now; each delivery checks again as it connects).
 * A name that does not resolve yet is taken for https on a standard port (deliveries report it).
 */
export async function checkedUrl(deps: Deps, text: string): Promise<string> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw webhookErrors.invalid(WEBHOOK_TEXT.urlInvalid);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw webhookErrors.invalid(WEBHOOK_TEXT.urlNotHttps);
  if (url.username || url.password) throw webhookErrors.invalid(WEBHOOK_TEXT.urlCredentials);
  try {
    await checkOutboundUrl(deps.config.outbound, url, { standardPortsOnly: true });
  } catch (err) {
    if (!(err instanceof OutboundError)) throw err;
    if (err.step === "address") throw webhookErrors.invalid(WEBHOOK_TEXT.urlPrivate);
    if (err.message === OUTBOUND_TEXT.httpsRequired) throw webhookErrors.invalid(WEBHOOK_TEXT.urlNotHttps);
    if (err.message === OUTBOUND_TEXT.port) throw webhookErrors.invalid(WEBHOOK_TEXT.urlPort);
    const standard = url.protocol === "https:" && (url.port === "" || url.port === "443");
    if (err.step !== "resolve" || !standard) throw webhookErrors.invalid(WEBHOOK_TEXT.urlUnresolved);
  }
  return url.toString();
}

/** The URL as it would be stored, to tell whether a save changes it; null when it does not parse. */
const normalised = (text: string) => {
  try {
    return new URL(text).toString();
  } catch {
    return null;
  }
};

/** The organisation's endpoint without its secret, or null. */
export async function getWebhook(deps: Deps, actor: Actor) {
  const endpoint = await repo.findEndpoint(deps.db, organisationFor(actor));
  return endpoint ? { url: endpoint.url, events: endpoint.events, secretHint: endpoint.secretHint } : null;
}

/** Sets the endpoint with a new signing secret, returned this once. A new URL needs a sign-in from the last 15 minutes. */
export async function setWebhook(
  deps: Deps,
  actor: Actor,
  input: { url: string; events?: string[]; sessionHash?: string | null },
) {
  const organisationId = organisationFor(actor);
  // Pointing the organisation's events somewhere else needs a recent sign-in (as adding a passkey does).
  const current = await repo.findEndpoint(deps.db, organisationId);
  if (current?.url !== normalised(input.url))
    await assertRecentSignIn(deps, actor, input.sessionHash ?? null, {
      action: AUDIT_ACTIONS.setWebhook,
      error: webhookErrors.needsRecentSignIn,
      organisationId,
    });
  const url = await checkedUrl(deps, input.url);
  const events = WEBHOOK_EVENT_NAMES.filter((e) => (input.events ?? WEBHOOK_EVENT_NAMES).includes(e));
  const secret = newWebhookSecret();
  await repo.saveEndpoint(deps.db, {
    organisationId,
    url,
    events,
    secretSealed: seal(deps.config.appSecret, secret),
    secretHint: secret.slice(-4),
    now: deps.clock.now(),
  });
  await deps.audit.record({
    ...auditActor(actor),
    action: AUDIT_ACTIONS.setWebhook,
    outcome: "success",
    organisationId,
    detail: { host: new URL(url).host, events },
  });
  return { url, events: [...events], secret };
}

export async function removeWebhook(deps: Deps, actor: Actor) {
  const organisationId = organisationFor(actor);
  if (!(await repo.deleteEndpoint(deps.db, organisationId, deps.clock.now()))) throw webhookErrors.noEndpoint();
  await deps.audit.record({
    ...auditActor(actor),
    action: AUDIT_ACTIONS.removeWebhook,
    outcome: "success",
    organisationId,
  });
  return { message: WEBHOOK_TEXT.removed };
}

/** The last 20 deliveries, newest first. */
export async function deliveries(deps: Deps, actor: Actor): Promise<WebhookDelivery[]> {
  const rows = await repo.recentDeliveries(deps.db, organisationFor(actor));
  return rows.map((d) => ({
    id: d.id,
    messageId: d.messageId,
    eventType: d.eventType,
    status: d.status,
    attempts: d.attempts,
    createdAt: d.createdAt.toISOString(),
    lastAttemptAt: d.lastAttemptAt?.toISOString() ?? null,
    lastStatus: d.lastStatus,
    lastError: d.lastError,
    nextAttemptAt: d.status === "pending" ? d.nextAttemptAt.toISOString() : null,
  }));
}

/** Queues a `webhook.test` event; at most 5 a minute per organisation. */
export async function sendTestEvent(deps: Deps, actor: Actor) {
  const organisationId = organisationFor(actor);
  if (!(await repo.findEndpoint(deps.db, organisationId))) throw webhookErrors.noEndpoint();
  const now = deps.clock.now();
  const limit = await deps.limits.hit(`webhook-test:org:${organisationId}`, 5, 60_000, now);
  if (!limit.allowed) throw webhookErrors.tooManyTests(limit.retryAfterSeconds);
  await repo.queueTestEvent(deps.db, organisationId, now);
  await deps.audit.record({
    ...auditActor(actor),
    action: AUDIT_ACTIONS.testWebhook,
    outcome: "success",
    organisationId,
  });
  return { message: WEBHOOK_TEXT.testQueued };
}

// ---- delivery ----

/** First retry after 10 s, then doubling, at most 10 minutes apart. */
export function retryDelayMs(attempts: number): number {
  return Math.min(10_000 * 2 ** Math.max(0, attempts - 1), 600_000);
}
/** A delivery is retried until it is this old. */
export const RETRY_FOR_MS = 24 * 3_600_000;
/** How long a claimed delivery is this worker's; longer than a send can take. */
const LEASE_MS = 60_000;

export type DeliveryOutcome = "delivered" | "retry" | "failed";

/**
 * Claims the due deliveries and sends each once (in parallel). Returns each outcome, for metrics.
 * Safe in every process at once: a delivery is claimed by one worker at a time.
 */
export async function deliverDue(deps: Deps, batch = 20): Promise<DeliveryOutcome[]> {
  const now = deps.clock.now();
  const due = await repo.claimDue(deps.db, now, new Date(now.getTime() + LEASE_MS), batch);
  return Promise.all(due.map((d) => deliverOne(deps, d)));
}

/** One attempt: sent, or refused with a reason (a secret that no longer opens, e.g. after APP_SECRET changed, included). */
async function attempt(deps: Deps, d: repo.DueDelivery) {
  if (!d.url || !d.secret_sealed)
    return { ok: false, status: null, error: "the endpoint was removed", permanent: true } as const;
  let secret: string;
  try {
    secret = unseal(deps.config.appSecret, d.secret_sealed);
  } catch {
    return {
      ok: false,
      status: null,
      error: "the signing secret cannot be read: save the endpoint again",
      permanent: false,
    } as const;
  }
  const headers = signedHeaders(secret, d.message_id, deps.clock.now(), d.payload);
  return postDelivery(deps.config.outbound, d.url, headers, d.payload);
}

async function deliverOne(deps: Deps, d: repo.DueDelivery): Promise<DeliveryOutcome> {
  const result = await attempt(deps, d);
  const now = deps.clock.now();
  if (result.ok) {
    await repo.markDelivered(deps.db, d.id, result.status, now);
    return "delivered";
  }
  // A URL the outbound policy refuses (scheme, port, address) is failed at once with the reason: retrying cannot help.
  const giveUp = !d.url || result.permanent || now.getTime() - d.created_at.getTime() >= RETRY_FOR_MS;
  const retryAt = giveUp ? null : new Date(now.getTime() + retryDelayMs(d.attempts));
  await repo.markAttemptFailed(deps.db, d.id, { status: result.status, error: result.error, retryAt });
  if (giveUp) deps.log.warn({ deliveryId: d.id, error: result.error }, "webhook delivery failed for good");
  return giveUp ? "failed" : "retry";
}
