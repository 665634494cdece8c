import { type Actor, auditActor, type Deps } from "@server/context";
import { organisationFor } from "@server/features/organisations";
import { assertRecentSignIn } from "@server/features/users";
import { checkOutboundUrl, OUTBOUND_TEXT, OutboundError } from "@server/lib/outbound";
import { openSecret, SEALED_PURPOSES, sealSecret } from "@server/lib/sealed-secrets";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { WEBHOOK_EVENT_NAMES, WEBHOOK_TEXT, type WebhookDelivery, type WebhookHealth } from "@shared/webhooks";
import { webhookErrors } from "./errors";
import { wakeWorkersAfterCommit } from "./outbox";
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
  return endpoint
    ? {
        url: endpoint.url,
        events: endpoint.events,
        secretHint: endpoint.secretHint,
        health: endpointHealth(endpoint, deps.clock.now()),
      }
    : null;
}

/** The circuit breaker as the dashboard shows it: paused (until when), failing (probation) or healthy. */
function endpointHealth(endpoint: { consecutiveFailures: number; pausedUntil: Date | null }, now: Date): WebhookHealth {
  const paused = endpoint.pausedUntil !== null && endpoint.pausedUntil > now;
  return {
    state: paused ? "paused" : endpoint.consecutiveFailures > 0 ? "failing" : "healthy",
    consecutiveFailures: endpoint.consecutiveFailures,
    pausedUntil: paused ? (endpoint.pausedUntil?.toISOString() ?? null) : null,
  };
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
      organisationId,
    });
  const url = await checkedUrl(deps, input.url);
  const events = WEBHOOK_EVENT_NAMES.filter((e) => (input.events ?? WEBHOOK_EVENT_NAMES).includes(e));
  const secret = newWebhookSecret();
  await repo.saveEndpoint(deps.db, {
    organisationId,
    url,
    events,
    secretSealed: sealSecret(deps.config.appSecret, SEALED_PURPOSES.webhookSecret, organisationId, secret),
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
  if ((await repo.queueTestEvent(deps.db, organisationId, now)) > 0) wakeWorkersAfterCommit(deps);
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
/** How long a claimed delivery is this worker's; longer than a send can take (connect + read timeouts). */
const LEASE_MS = 60_000;

/**
 * Fairness and the circuit breaker (docs/security.md, N4): an endpoint starts with 4 deliveries in flight
 * at once (`perEndpoint`), never fewer while it is healthy; each success within `fastMs` adds one to its
 * share (so it doubles with each round of answers, as TCP's slow start does), up to `mostPerEndpoint`; a
 * failure or a slower answer halves it. So a receiver that keeps up with a burst gets it as fast as it
 * answers, and a dead or slow one holds 4 (or what it had earned, until its first answers come back).
 * After 5 failures in a row the endpoint is paused as a whole, 1 minute at first, doubling with each
 * further failure up to an hour, and then tried one delivery at a time until one succeeds.
 */
export const WEBHOOK_FAIRNESS = {
  perEndpoint: 4,
  mostPerEndpoint: 128,
  fastMs: 1_000,
  breakerOpensAfter: 5,
  firstPauseMs: 60_000,
  longestPauseMs: 3_600_000,
} as const;
/** A receiver gets this long to accept the connection, and then this long to answer. */
export const WEBHOOK_TIMEOUTS = { connectMs: 3_000, readMs: 10_000 } as const;

/** How long an endpoint that failed `failures` times in a row is paused. */
export function pauseMs(failures: number): number {
  const { breakerOpensAfter, firstPauseMs, longestPauseMs } = WEBHOOK_FAIRNESS;
  return Math.min(firstPauseMs * 2 ** Math.max(0, failures - breakerOpensAfter), longestPauseMs);
}

export type DeliveryOutcome = "delivered" | "retry" | "failed";

/**
 * Claims up to `limit` due deliveries for this worker, fairly per endpoint (repository `claimDue`): a dead
 * endpoint holds at most 4 of them, and none while its circuit is open.
 */
export async function claimDeliveries(deps: Deps, limit: number): Promise<repo.DueDelivery[]> {
  const now = deps.clock.now();
  return repo.claimDue(deps.db, now, new Date(now.getTime() + LEASE_MS), limit, {
    probationAfter: WEBHOOK_FAIRNESS.breakerOpensAfter,
  });
}

/** One attempt: sent, or refused with a reason (a secret that no longer opens, e.g. after APP_SECRET changed, included). */
async function attempt(deps: Deps, d: repo.DueDelivery) {
  if (!d.url || !d.secret_sealed)
    return { ok: false, status: null, error: "the endpoint was removed", permanent: true } as const;
  // Sealed for this organisation's webhook only: a value copied from another row does not open.
  const secret = openSecret(
    deps.config.appSecret,
    SEALED_PURPOSES.webhookSecret,
    Number(d.organisation_id),
    d.secret_sealed,
  );
  if (secret === null) {
    return {
      ok: false,
      status: null,
      error: "the signing secret cannot be read: save the endpoint again",
      permanent: false,
    } as const;
  }
  const body = d.customer_hash ? openedCallPayload(deps, d) : d.payload;
  if (body === null)
    return { ok: false, status: null, error: "the customer reference cannot be read", permanent: true } as const;
  const headers = signedHeaders(secret, d.message_id, deps.clock.now(), body);
  return postDelivery(deps.config.outbound, d.url, headers, body, {
    connectTimeoutMs: WEBHOOK_TIMEOUTS.connectMs,
    timeoutMs: WEBHOOK_TIMEOUTS.connectMs + WEBHOOK_TIMEOUTS.readMs,
  });
}

/**
 * A call event's body as sent: kept with `data.customerRef` sealed for the organisation (never in clear at
 * rest), opened only here, just before it is signed and sent. Null when it does not open.
 */
function openedCallPayload(deps: Deps, d: repo.DueDelivery): string | null {
  try {
    const body = JSON.parse(d.payload) as { data?: { customerRef?: unknown } };
    if (!body.data || typeof body.data.customerRef !== "string") return d.payload;
    const ref = openSecret(
      deps.config.appSecret,
      SEALED_PURPOSES.customerRef,
      Number(d.organisation_id),
      body.data.customerRef,
    );
    if (ref === null) return null;
    body.data.customerRef = ref;
    return JSON.stringify(body);
  } catch {
    return null;
  }
}

/** A finished attempt, and what became of the delivery. */
export type Finished = repo.FinishedAttempt & { outcome: DeliveryOutcome };

/**
 * One attempt at one claimed delivery: sent (or refused), and what is to become of it. Nothing is written
 * here: `recordFinished` writes the attempts that ended meanwhile together.
 */
export async function attemptDelivery(deps: Deps, d: repo.DueDelivery): Promise<Finished> {
  const started = deps.clock.now();
  const result = await attempt(deps, d);
  const now = deps.clock.now();
  const base = {
    id: d.id,
    organisationId: d.organisation_id,
    endpointSavedAt: d.endpoint_saved_at,
    status: result.status,
  };
  if (result.ok) {
    const fast = now.getTime() - started.getTime() <= WEBHOOK_FAIRNESS.fastMs;
    return { ...base, ok: true, error: null, retryAt: null, fast, outcome: "delivered" };
  }
  // A URL the outbound policy refuses (scheme, port, address) is failed at once with the reason: retrying cannot help.
  const giveUp = !d.url || result.permanent || now.getTime() - d.created_at.getTime() >= RETRY_FOR_MS;
  const retryAt = giveUp ? null : new Date(now.getTime() + retryDelayMs(d.attempts));
  if (giveUp) deps.log.warn({ deliveryId: d.id, error: result.error }, "webhook delivery failed for good");
  return { ...base, ok: false, error: result.error, retryAt, fast: false, outcome: giveUp ? "failed" : "retry" };
}

/**
 * Writes finished attempts (one statement for the batch: repository `recordAttempts`), and pauses the
 * endpoints whose failures in a row reached the breaker.
 */
export async function recordFinished(deps: Deps, finished: readonly Finished[]) {
  const now = deps.clock.now();
  const changed = await repo.recordAttempts(deps.db, finished, now, {
    least: WEBHOOK_FAIRNESS.perEndpoint,
    most: WEBHOOK_FAIRNESS.mostPerEndpoint,
  });
  const opens = WEBHOOK_FAIRNESS.breakerOpensAfter;
  for (const e of changed) {
    if (e.failures < opens) continue;
    const pausedUntil = new Date(now.getTime() + pauseMs(e.failures));
    await repo.pauseEndpoint(deps.db, e.organisationId, pausedUntil, opens);
    if (e.failuresBefore < opens)
      deps.log.warn({ organisationId: e.organisationId, pausedUntil }, "webhook endpoint paused: it keeps failing");
  }
}
