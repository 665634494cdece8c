import { OutboundError, type OutboundPolicy, outboundFetch } from "@server/lib/outbound";

/**
 * One attempt's result. `permanent`: the policy refuses the URL (scheme, port, address), so trying again
 * cannot help: the delivery fails at once with the reason instead of being retried for 24 hours.
 */
export type SendResult =
  | { ok: true; status: number }
  | { ok: false; status: number | null; error: string; permanent: boolean };

/** A receiver gets this long to answer, connection included; the connection itself, much less. */
export const DELIVERY_TIMEOUT_MS = 10_000;
export const DELIVERY_CONNECT_TIMEOUT_MS = 3_000;

/**
 * What the employer reads when a delivery failed. Never a port, a status or the answer's content: a
 * refused connection, a reset, a timeout and a server that speaks no HTTP all read the same, so the
 * delivery list cannot be used to learn which ports answer on a network the server reaches.
 */
export const DELIVERY_ERROR = {
  unreachable: "could not connect or no answer in time",
  notAccepted: "the receiver did not accept the delivery (no 2xx answer)",
} as const;

/**
 * POSTs one delivery through the outbound path (lib/outbound.ts): the URL and every address of its host
 * are checked against OUTBOUND_ALLOWED_HOSTS, the connection is pinned to a checked address, only ports
 * 443 and 80 unless the operator allows the host, no redirect is followed; 2xx is success. The connection
 * is kept alive for the receiver's next delivery.
 */
export async function postDelivery(
  policy: OutboundPolicy,
  url: string,
  headers: Record<string, string>,
  body: string,
  opts: { timeoutMs?: number; connectTimeoutMs?: number } = {},
): Promise<SendResult> {
  let res: Response;
  try {
    res = await outboundFetch(policy, url, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "CallProof-Webhooks/1", ...headers },
      body,
      timeoutMs: opts.timeoutMs ?? DELIVERY_TIMEOUT_MS,
      connectTimeoutMs: opts.connectTimeoutMs ?? DELIVERY_CONNECT_TIMEOUT_MS,
      standardPortsOnly: true,
      // one connection (and TLS handshake) per receiver kept between deliveries, not one per delivery
      keepAlive: true,
    });
  } catch (err) {
    if (!(err instanceof OutboundError)) throw err;
    if (err.step === "url" || err.step === "address")
      return { ok: false, status: null, error: err.message, permanent: true };
    if (err.step === "resolve") return { ok: false, status: null, error: err.message, permanent: false };
    return { ok: false, status: null, error: DELIVERY_ERROR.unreachable, permanent: false };
  }
  const status = res.status;
  return status >= 200 && status < 300
    ? { ok: true, status }
    : { ok: false, status, error: DELIVERY_ERROR.notAccepted, permanent: false };
}
