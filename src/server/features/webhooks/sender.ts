import { lookup as dnsLookup } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { isPublicAddress } from "@server/lib/public-address";

export type SendResult = { ok: true; status: number } | { ok: false; status: number | null; error: string };

/** A receiver gets this long to answer, connection included. */
export const DELIVERY_TIMEOUT_MS = 10_000;

/**
 * POSTs one delivery. The host's addresses are looked up once and the connection pinned to them, so a
 * DNS answer cannot point it inside the network after the check; unless `allowPrivate` (tests only),
 * any non-public address refuses the delivery. Redirects are not followed; 2xx is success.
 */
export async function postDelivery(
  url: string,
  headers: Record<string, string>,
  body: string,
  opts: { allowPrivate: boolean; timeoutMs?: number; connectTimeoutMs?: number },
): Promise<SendResult> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return { ok: false, status: null, error: "the URL is not valid" };
  }
  const host = target.hostname.replace(/^\[(.*)\]$/, "$1");
  let addresses: { address: string; family: number }[];
  try {
    addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await dnsLookup(host, { all: true });
  } catch {
    return { ok: false, status: null, error: "the host name could not be resolved" };
  }
  if (addresses.length === 0) return { ok: false, status: null, error: "the host name could not be resolved" };
  if (!opts.allowPrivate && !addresses.every((a) => isPublicAddress(a.address)))
    return { ok: false, status: null, error: "refused: the host resolves to a private or loopback address" };
  const pinned = addresses[0]!;
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
  const request = target.protocol === "https:" ? https.request : http.request;
  return new Promise((resolve) => {
    const req = request(
      target,
      {
        method: "POST",
        lookup,
        signal: AbortSignal.timeout(opts.timeoutMs ?? DELIVERY_TIMEOUT_MS),
        headers: {
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(body)),
          "user-agent": "CallProof-Webhooks/1",
          ...headers,
        },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        // The answer's body is not needed: drain it so the connection closes.
        res.resume();
        res.on("end", () =>
          resolve(
            status >= 200 && status < 300
              ? { ok: true, status }
              : { ok: false, status, error: `the receiver answered ${status}` },
          ),
        );
        res.on("error", () => resolve({ ok: false, status, error: "the answer was cut off" }));
      },
    );
    // A receiver that does not accept the connection in time is given up before the whole deadline.
    const connectTimeoutMs = opts.connectTimeoutMs;
    if (connectTimeoutMs !== undefined) {
      req.once("socket", (socket) => {
        if (!socket.connecting) return;
        const timer = setTimeout(
          () => req.destroy(Object.assign(new Error("connect"), { name: "TimeoutError" })),
          connectTimeoutMs,
        );
        socket.once("connect", () => clearTimeout(timer));
        socket.once("close", () => clearTimeout(timer));
      });
    }
    req.on("error", (err: Error & { code?: string }) =>
      resolve({
        ok: false,
        status: null,
        error:
          err.name === "AbortError" || err.name === "TimeoutError"
            ? "timed out"
            : `could not connect (${err.code ?? "error"})`,
      }),
    );
    req.end(body);
  });
}
