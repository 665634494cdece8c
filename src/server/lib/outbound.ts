/**
 * STAND-IN (branch `sso`): a minimal local version of the one outbound path that helper `out` builds, with
 * the fixed interface of outbound-api.md, so that single sign-on can be written and tested before it is
 * merged. The integrator keeps `out`'s file and drops this one.
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

export type OutboundPolicy = { entries: string[] };

const KEYWORDS = new Set(["external", "loopback", "private", "*"]);

export function parseOutboundPolicy(text: string): OutboundPolicy {
  const entries = text
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  for (const entry of entries) {
    if (!KEYWORDS.has(entry) && !isIP(entry) && !/^(\*\.)?[a-z0-9.-]+$/.test(entry))
      throw new Error(`OUTBOUND_ALLOWED_HOSTS: "${entry}" is not a keyword, host name or address`);
  }
  return { entries };
}

export class OutboundError extends Error {
  override name = "OutboundError";
  constructor(
    readonly step: "url" | "resolve" | "address" | "connect" | "timeout" | "answer",
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

function allowedAddress(policy: OutboundPolicy, address: string, host: string): boolean {
  const range = ipaddr.process(address).range();
  for (const entry of policy.entries) {
    if (entry === "*") return true;
    if (entry === "external" && range === "unicast") return true;
    if (entry === "loopback" && range === "loopback") return true;
    if (entry === "private" && (range === "private" || range === "uniqueLocal" || range === "carrierGradeNat"))
      return true;
    if (entry === address || entry === host) return true;
  }
  return false;
}

/** Whether http (not https) is accepted for this host: only what the list allows as loopback, private or by name. */
function httpAllowed(policy: OutboundPolicy, address: string, host: string): boolean {
  return policy.entries.some((e) => e !== "external" && e !== "*") && allowedAddress(policy, address, host);
}

export async function outboundFetch(
  policy: OutboundPolicy,
  url: string | URL,
  init: {
    method?: string;
    headers?: HeadersInit;
    body?: string | Uint8Array | URLSearchParams | null;
    signal?: AbortSignal;
    redirect?: RequestRedirect;
    timeoutMs?: number;
    connectTimeoutMs?: number;
    maxBytes?: number;
  } = {},
): Promise<Response> {
  const target = new URL(url);
  if (target.protocol !== "https:" && target.protocol !== "http:") throw new OutboundError("url", "https is required");
  const host = target.hostname.replace(/^\[(.*)\]$/, "$1");
  let address = host;
  if (!isIP(host)) {
    try {
      address = (await lookup(host)).address;
    } catch {
      throw new OutboundError("resolve", "the host name could not be resolved");
    }
  }
  if (!allowedAddress(policy, address, host)) throw new OutboundError("address", "the address is not allowed");
  if (target.protocol === "http:" && !httpAllowed(policy, address, host))
    throw new OutboundError("url", "https is required");
  const timeout = AbortSignal.timeout(init.timeoutMs ?? 10_000);
  try {
    return await fetch(target, {
      method: init.method,
      headers: init.headers,
      body: init.body as BodyInit | null | undefined,
      redirect: "manual",
      signal: init.signal ? AbortSignal.any([init.signal, timeout]) : timeout,
    });
  } catch (err) {
    if (timeout.aborted) throw new OutboundError("timeout", "timed out");
    throw new OutboundError("connect", "could not connect", { cause: err });
  }
}
