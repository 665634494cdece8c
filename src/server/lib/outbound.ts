import { lookup as dnsLookup } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { domainToASCII } from "node:url";
import ipaddr from "ipaddr.js";

/**
 * The one outbound path: every request the server makes on an organisation's behalf (webhook deliveries,
 * site-proof files, an identity provider's endpoints) goes through `outboundFetch`, which checks the URL
 * and every address its host resolves to against the operator's `OUTBOUND_ALLOWED_HOSTS`, connects to a
 * checked address only (so a second DNS answer cannot point it elsewhere), never follows redirects, and
 * bounds the time and the size of the answer.
 */

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Range = { network: Address; bits: number };

type Entry =
  | { kind: "external" | "loopback" | "private" | "any" }
  | { kind: "name"; name: string }
  | { kind: "suffix"; suffix: string }
  | { kind: "range"; range: Range };

/** One answer of a name look-up. */
export type ResolvedAddress = { address: string; family: 4 | 6 };
/** Resolves a host name to all its addresses (throws when it cannot). */
export type Resolve = (host: string) => Promise<ResolvedAddress[]>;

/** A parsed `OUTBOUND_ALLOWED_HOSTS`. */
export type OutboundPolicy = {
  /** the entries as the operator wrote them, normalised (for messages and logs) */
  readonly text: string;
  readonly entries: readonly Entry[];
  /** name look-ups; the system's resolver unless set (see `withResolver`) */
  readonly resolve?: Resolve;
};

/** The policy with names looked up by `resolve` (e.g. the site prover's own DNS servers) instead of the system's. */
export function withResolver(policy: OutboundPolicy, resolve: Resolve): OutboundPolicy {
  return { ...policy, resolve };
}

const range = (text: string): Range => {
  const [network, bits] = ipaddr.parseCIDR(text);
  return { network, bits };
};

/**
 * Refused under every entry (`*` and `private` included) unless listed by address: link-local and the
 * cloud metadata addresses, IPv4-compatible IPv6 (::/96) and 0.0.0.0/8 ("this host": Linux connects it
 * to the machine itself). "Listed by address" means an address or range entry lying inside the block.
 */
const ALWAYS_REFUSED: Range[] = [
  range("169.254.0.0/16"),
  range("fe80::/10"),
  range("fd00:ec2::254/128"),
  range("100.100.100.200/32"),
  range("::/96"),
  range("0.0.0.0/8"),
];
const IPV6_LOOPBACK = ipaddr.parse("::1");

const PRIVATE_V4 = [range("10.0.0.0/8"), range("172.16.0.0/12"), range("192.168.0.0/16"), range("100.64.0.0/10")];
const PRIVATE_V6 = [range("fc00::/7")];
const LOOPBACK_V4 = range("127.0.0.0/8");

const NAT64 = [range("64:ff9b::/96"), range("64:ff9b:1::/48")];
const SIX_TO_FOUR = range("2002::/16");
const TEREDO = range("2001::/32");
const V4_MAPPED = [range("::ffff:0:0/96"), range("::ffff:0:0:0/96")];

function inRange(address: Address, r: Range): boolean {
  return address.kind() === r.network.kind() && address.match(r.network, r.bits);
}

/** Whether range `inner` lies wholly inside `outer`. */
function rangeInside(inner: Range, outer: Range): boolean {
  return inner.bits >= outer.bits && inRange(inner.network, outer);
}

const v4FromWords = (high: number, low: number) =>
  new ipaddr.IPv4([(high >> 8) & 0xff, high & 0xff, (low >> 8) & 0xff, low & 0xff]);

/** The IPv4 address an IPv6 address carries (mapped, NAT64, 6to4, Teredo's client), or null. */
function carriedIPv4(address: Address): ipaddr.IPv4 | null {
  if (address.kind() !== "ipv6") return null;
  const p = (address as ipaddr.IPv6).parts;
  if (V4_MAPPED.some((r) => inRange(address, r)) || NAT64.some((r) => inRange(address, r)))
    return v4FromWords(p[6]!, p[7]!);
  if (inRange(address, SIX_TO_FOUR)) return v4FromWords(p[1]!, p[2]!);
  // Teredo: the client's address is the last 32 bits, inverted.
  if (inRange(address, TEREDO)) return v4FromWords(~p[6]! & 0xffff, ~p[7]! & 0xffff);
  return null;
}

type AddressClass = "loopback" | "private" | "public" | "other";

function classOf(address: Address): AddressClass {
  if (address.kind() === "ipv4") {
    if (inRange(address, LOOPBACK_V4)) return "loopback";
    if (PRIVATE_V4.some((r) => inRange(address, r))) return "private";
    return address.range() === "unicast" ? "public" : "other";
  }
  if (inRange(address, { network: IPV6_LOOPBACK, bits: 128 })) return "loopback";
  if (PRIVATE_V6.some((r) => inRange(address, r))) return "private";
  return address.range() === "unicast" ? "public" : "other";
}

/** How the policy takes one address of a host: refused, or allowed (by the operator's own entries, or as public). */
export type AddressJudgement = { allowed: false } | { allowed: true; byOperator: boolean };

const nameMatches = (entry: Entry, host: string) =>
  (entry.kind === "name" && entry.name === host) || (entry.kind === "suffix" && host.endsWith(`.${entry.suffix}`));

/**
 * Judges one address that `host` (a name, or null for an IP literal) resolved to. IPv4-mapped, NAT64,
 * 6to4 and Teredo addresses are judged by the IPv4 address they carry. `byOperator` is true when an
 * entry other than `external` and `*` allows it (loopback, private, a name or a range): only those hosts
 * may be reached over plain http or on other ports than 443 and 80.
 */
export function judgeAddress(policy: OutboundPolicy, host: string | null, addressText: string): AddressJudgement {
  let literal: Address;
  try {
    literal = ipaddr.parse(addressText.replace(/%.*$/, ""));
  } catch {
    return { allowed: false };
  }
  const carried = carriedIPv4(literal);
  const judged: Address = carried ?? literal;
  const views: Address[] = carried ? [literal, carried] : [literal];
  const isV6Loopback = (a: Address) => a.kind() === "ipv6" && inRange(a, { network: IPV6_LOOPBACK, bits: 128 });
  const refusedBlock = ALWAYS_REFUSED.find((block) => views.some((v) => !isV6Loopback(v) && inRange(v, block)));

  for (const entry of policy.entries) {
    if (entry.kind !== "range") continue;
    if (!views.some((v) => inRange(v, entry.range))) continue;
    if (refusedBlock && !rangeInside(entry.range, refusedBlock)) continue;
    return { allowed: true, byOperator: true };
  }
  if (refusedBlock) return { allowed: false };
  if (host !== null && policy.entries.some((e) => nameMatches(e, host))) return { allowed: true, byOperator: true };
  const kind = classOf(judged);
  const has = (k: Entry["kind"]) => policy.entries.some((e) => e.kind === k);
  if (kind === "loopback" && has("loopback")) return { allowed: true, byOperator: true };
  if (kind === "private" && has("private")) return { allowed: true, byOperator: true };
  if (kind === "public" && has("external")) return { allowed: true, byOperator: false };
  if (has("any")) return { allowed: true, byOperator: false };
  return { allowed: false };
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

function hostNameOk(name: string): boolean {
  if (name.length > 253) return false;
  const labels = name.split(".");
  // A name whose last label is numeric is read as an IPv4 address by URL parsers: never a name.
  return labels.every((l) => LABEL.test(l)) && !/^[0-9]+$/.test(labels.at(-1) ?? "");
}

/**
 * Parses `OUTBOUND_ALLOWED_HOSTS`: a comma-separated list of `external`, `loopback`, `private`, `*`, host
 * names (`hooks.corp.example`, `*.corp.example`), IP addresses and CIDR ranges. Throws an Error naming
 * the first bad entry.
 */
export function parseOutboundPolicy(text: string): OutboundPolicy {
  const items = text
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (items.length === 0) throw new Error("has no entries: give at least one (the default is external)");
  const entries: Entry[] = [];
  for (const item of items) {
    const bad = () =>
      new Error(
        `entry "${item}" is not one of external, loopback, private, *, a host name (hooks.corp.example, *.corp.example), an IP address or a CIDR range (10.0.0.0/8)`,
      );
    if (item === "external" || item === "loopback" || item === "private") entries.push({ kind: item });
    else if (item === "*") entries.push({ kind: "any" });
    else if (item.includes("/")) {
      const [address = "", bits = "", extra] = item.split("/");
      const family = isIP(address);
      if (family === 0 || extra !== undefined || !/^\d{1,3}$/.test(bits) || Number(bits) > (family === 4 ? 32 : 128))
        throw bad();
      const parsed = range(`${address}/${Number(bits)}`);
      // The network address itself, so that 10.1.2.3/8 reads as 10.0.0.0/8.
      entries.push({ kind: "range", range: parsed });
    } else if (isIP(item.replace(/^\[(.*)\]$/, "$1"))) {
      const address = ipaddr.parse(item.replace(/^\[(.*)\]$/, "$1"));
      entries.push({ kind: "range", range: { network: address, bits: address.kind() === "ipv4" ? 32 : 128 } });
    } else if (item.startsWith("*.")) {
      // As URLs carry them: an international name in its ASCII (punycode) form.
      const suffix = domainToASCII(item.slice(2).replace(/\.$/, ""));
      if (!hostNameOk(suffix)) throw bad();
      entries.push({ kind: "suffix", suffix });
    } else {
      const name = domainToASCII(item.replace(/\.$/, ""));
      if (!hostNameOk(name)) throw bad();
      entries.push({ kind: "name", name });
    }
  }
  return { text: items.join(","), entries };
}

export type OutboundStep = "url" | "resolve" | "address" | "connect" | "timeout" | "answer";

/**
 * A refused or failed outbound request. `message` is human and names the step that failed, never a
 * status, a port or content of the answer.
 */
export class OutboundError extends Error {
  override name = "OutboundError";
  constructor(
    readonly step: OutboundStep,
    message: string,
  ) {
    super(message);
  }
}

/** The messages, one per way of failing (callers may show them to an organisation). */
export const OUTBOUND_TEXT = {
  invalidUrl: "the URL is not valid",
  scheme: "only https URLs are allowed",
  credentials: "the URL must not contain a user name or password",
  httpsRequired: "https is required for this host",
  port: "only ports 443 and 80 are allowed for this host",
  resolve: "the host name could not be resolved",
  address:
    "the address is not allowed (loopback, private, link-local and metadata addresses are refused unless the server's operator allows them)",
  connect: "could not connect",
  timeout: "timed out",
  tooLarge: "the answer was too large",
  badAnswer: "the answer was not valid",
  redirect: "the answer was a redirect, which is not followed",
} as const;

export const OUTBOUND_DEFAULTS = { timeoutMs: 10_000, connectTimeoutMs: 3_000, maxBytes: 1_048_576 } as const;

/** `localhost` and `*.localhost` never reach DNS (RFC 6761). */
const LOCALHOST: ResolvedAddress[] = [
  { address: "127.0.0.1", family: 4 },
  { address: "::1", family: 6 },
];

const systemResolve: Resolve = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family === 6 ? 6 : 4,
  }));

function withDeadline<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(onTimeout()), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** 443 or 80, written or implied by the scheme. */
const standardPort = (url: URL) => url.port === "" || url.port === "443" || url.port === "80";

/** A URL the policy accepts, with the address to connect to. */
export type CheckedTarget = {
  url: URL;
  /** the host without IPv6 brackets, lower case */
  host: string;
  /** every address checked; the connection goes to `pinned` */
  addresses: ResolvedAddress[];
  pinned: ResolvedAddress;
  /** allowed by the operator's loopback, private, name or range entries (every address) */
  byOperator: boolean;
};

/**
 * Checks a URL against the policy without connecting: scheme and credentials, the host's addresses
 * (a name is resolved; every address must be allowed), https unless the operator allows the host, and
 * with `standardPortsOnly` the port (443 or 80 unless the operator allows the host). Throws OutboundError.
 */
export async function checkOutboundUrl(
  policy: OutboundPolicy,
  input: string | URL,
  opts: { standardPortsOnly?: boolean; resolveTimeoutMs?: number } = {},
): Promise<CheckedTarget> {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new OutboundError("url", OUTBOUND_TEXT.invalidUrl);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new OutboundError("url", OUTBOUND_TEXT.scheme);
  if (url.username || url.password) throw new OutboundError("url", OUTBOUND_TEXT.credentials);
  // Without loopback, private, name or range entries no host may use http or another port: say so before any look-up.
  const operatorEntries = policy.entries.some((e) => e.kind !== "external" && e.kind !== "any");
  if (!operatorEntries && url.protocol === "http:") throw new OutboundError("url", OUTBOUND_TEXT.httpsRequired);
  if (!operatorEntries && opts.standardPortsOnly && !standardPort(url))
    throw new OutboundError("url", OUTBOUND_TEXT.port);
  const host = url.hostname
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/\.$/, "")
    .toLowerCase();
  const literal = isIP(host) !== 0;
  let addresses: ResolvedAddress[];
  if (literal) addresses = [{ address: host, family: isIP(host) === 6 ? 6 : 4 }];
  else if (host === "localhost" || host.endsWith(".localhost")) addresses = LOCALHOST;
  else {
    try {
      addresses = await withDeadline(
        (policy.resolve ?? systemResolve)(host),
        opts.resolveTimeoutMs ?? OUTBOUND_DEFAULTS.connectTimeoutMs,
        () => new OutboundError("resolve", OUTBOUND_TEXT.resolve),
      );
    } catch {
      throw new OutboundError("resolve", OUTBOUND_TEXT.resolve);
    }
  }
  if (addresses.length === 0) throw new OutboundError("resolve", OUTBOUND_TEXT.resolve);
  let byOperator = true;
  for (const a of addresses) {
    const judged = judgeAddress(policy, literal ? null : host, a.address);
    if (!judged.allowed) throw new OutboundError("address", OUTBOUND_TEXT.address);
    byOperator &&= judged.byOperator;
  }
  if (url.protocol === "http:" && !byOperator) throw new OutboundError("url", OUTBOUND_TEXT.httpsRequired);
  if (opts.standardPortsOnly && !byOperator && !standardPort(url)) throw new OutboundError("url", OUTBOUND_TEXT.port);
  // IPv4 first: a loopback receiver usually listens on 127.0.0.1 only.
  const pinned = addresses.find((a) => a.family === 4) ?? addresses[0]!;
  return { url, host, addresses, pinned, byOperator };
}

export type OutboundInit = {
  method?: string;
  headers?: HeadersInit;
  body?: string | Uint8Array | URLSearchParams | null;
  signal?: AbortSignal;
  redirect?: RequestRedirect;
  /** the whole request, connection and answer included; default 10 s */
  timeoutMs?: number;
  /** the TCP connection (and the name look-up); default 3 s, never longer than `timeoutMs` */
  connectTimeoutMs?: number;
  /** largest answer body read; default 1 MiB */
  maxBytes?: number;
  /** only ports 443 and 80 unless the operator allows the host (webhooks) */
  standardPortsOnly?: boolean;
  /**
   * reuse a kept-alive connection to the same host, port and checked address, and keep this one for the
   * next request (webhooks: one TLS handshake per receiver, not per delivery). A kept connection that
   * turns out closed before any answer is tried once more on a new one.
   */
  keepAlive?: boolean;
};

/** The checked address a kept-alive connection was pinned to: part of its pool's name, with host and port. */
type PinnedOptions = { pinned?: string };
const pinnedName = (name: string, options: unknown) =>
  `${name}|${(options as PinnedOptions | undefined)?.pinned ?? ""}`;
class PinnedHttpAgent extends http.Agent {
  override getName(options?: http.ClientRequestArgs) {
    return pinnedName(super.getName(options), options);
  }
}
class PinnedHttpsAgent extends https.Agent {
  override getName(options?: https.RequestOptions) {
    return pinnedName(super.getName(options), options);
  }
}
/**
 * Kept-alive connections, per scheme: every one was connected to an address checked when it was made.
 * An idle one is closed after 4 s (sooner if the server's Keep-Alive hint says so), before the 5 s of
 * Node's own servers and the minutes of most others, so a kept one is rarely found closed.
 */
const KEPT = { keepAlive: true, timeout: 4_000, scheduling: "lifo" } as const;
const keptAlive = { "http:": new PinnedHttpAgent(KEPT), "https:": new PinnedHttpsAgent(KEPT) };

/** A kept-alive connection was found closed before any answer: the request goes again on a new one. */
class StaleConnection extends Error {}

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * fetch-compatible (usable as openid-client v6's customFetch): checks the URL's scheme and host against
 * the policy, resolves, checks every address, pins the connection to a checked address, never follows
 * redirects (a 3xx is returned as is; with `redirect: "error"` it throws), applies timeouts and a body
 * size cap. The answer is read whole before it is returned. Throws OutboundError (or the caller's
 * `signal` reason when that aborts).
 */
export async function outboundFetch(
  policy: OutboundPolicy,
  url: string | URL,
  init: OutboundInit = {},
): Promise<Response> {
  const timeoutMs = init.timeoutMs ?? OUTBOUND_DEFAULTS.timeoutMs;
  const connectTimeoutMs = Math.min(init.connectTimeoutMs ?? OUTBOUND_DEFAULTS.connectTimeoutMs, timeoutMs);
  const maxBytes = init.maxBytes ?? OUTBOUND_DEFAULTS.maxBytes;
  init.signal?.throwIfAborted();
  const started = Date.now();
  const target = await checkOutboundUrl(policy, url, {
    standardPortsOnly: init.standardPortsOnly,
    resolveTimeoutMs: connectTimeoutMs,
  });
  init.signal?.throwIfAborted();

  const headers: Record<string, string> = {};
  for (const [name, value] of new Headers(init.headers ?? {})) headers[name] = value;
  let body: Buffer | null = null;
  if (init.body instanceof URLSearchParams) {
    body = Buffer.from(init.body.toString());
    headers["content-type"] ??= "application/x-www-form-urlencoded;charset=UTF-8";
  } else if (typeof init.body === "string") body = Buffer.from(init.body);
  else if (init.body) body = Buffer.from(init.body);
  if (body) headers["content-length"] = String(body.length);
  headers["user-agent"] ??= "CallProof";
  // No accept-encoding: the answer comes uncompressed, as a Response body must be.
  delete headers["accept-encoding"];

  const pinned = target.pinned;
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
  const send = target.url.protocol === "https:" ? https.request : http.request;

  type Answer = { status: number; statusText: string; raw: string[]; body: Buffer };
  const exchange = (kept: boolean) =>
    new Promise<Answer>((resolve, reject) => {
      let settled = false;
      const fail = (err: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(overall);
        clearTimeout(connecting);
        init.signal?.removeEventListener("abort", onAbort);
        req.destroy();
        reject(err);
      };
      const onAbort = () => fail(init.signal?.reason ?? new DOMException("aborted", "AbortError"));
      const overall = setTimeout(
        () => fail(new OutboundError("timeout", OUTBOUND_TEXT.timeout)),
        Math.max(1, timeoutMs - (Date.now() - started)),
      );
      let connecting: NodeJS.Timeout | undefined;
      let connected = false;
      let answered = false;
      const options: http.RequestOptions & PinnedOptions = {
        method: (init.method ?? "GET").toUpperCase(),
        headers,
        lookup,
        agent: kept ? keptAlive[target.url.protocol as "http:" | "https:"] : false,
        pinned: pinned.address,
      };
      const req = send(target.url, options);
      init.signal?.addEventListener("abort", onAbort, { once: true });
      req.on("socket", (socket) => {
        if (!socket.connecting) {
          connected = true;
          return;
        }
        connecting = setTimeout(
          () => fail(new OutboundError("connect", OUTBOUND_TEXT.connect)),
          Math.max(1, Math.min(connectTimeoutMs, timeoutMs - (Date.now() - started))),
        );
        socket.once("connect", () => {
          connected = true;
          clearTimeout(connecting);
        });
      });
      req.on("error", (err: NodeJS.ErrnoException) => {
        if (err instanceof OutboundError) fail(err);
        else if (req.reusedSocket && !answered) fail(new StaleConnection());
        // Refused, reset, a TLS failure: the same words either way, so no answer tells which ports listen.
        else fail(new OutboundError(connected ? "answer" : "connect", OUTBOUND_TEXT.connect));
      });
      req.on("response", (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) fail(new OutboundError("answer", OUTBOUND_TEXT.tooLarge));
          else chunks.push(chunk);
        });
        res.on("error", () => fail(new OutboundError("answer", OUTBOUND_TEXT.badAnswer)));
        res.on("aborted", () => fail(new OutboundError("answer", OUTBOUND_TEXT.badAnswer)));
        res.on("end", () => {
          if (settled) return;
          settled = true;
          clearTimeout(overall);
          clearTimeout(connecting);
          init.signal?.removeEventListener("abort", onAbort);
          resolve({
            status: res.statusCode ?? 0,
            statusText: res.statusMessage ?? "",
            raw: res.rawHeaders,
            body: Buffer.concat(chunks),
          });
        });
      });
      req.end(body ?? undefined);
    });
  const answer = await exchange(init.keepAlive === true).catch((err) => {
    if (err instanceof StaleConnection) return exchange(false);
    throw err;
  });

  if (answer.status < 200 || answer.status > 599) throw new OutboundError("answer", OUTBOUND_TEXT.badAnswer);
  if (answer.status >= 300 && answer.status < 400 && init.redirect === "error")
    throw new OutboundError("answer", OUTBOUND_TEXT.redirect);
  const responseHeaders = new Headers();
  for (let i = 0; i + 1 < answer.raw.length; i += 2) {
    try {
      responseHeaders.append(answer.raw[i]!, answer.raw[i + 1]!);
    } catch {
      // A header a Response cannot carry is dropped.
    }
  }
  let response: Response;
  try {
    response = new Response(NULL_BODY_STATUSES.has(answer.status) ? null : new Uint8Array(answer.body), {
      status: answer.status,
      statusText: /^[\t\x20-\x7e\x80-\xff]*$/.test(answer.statusText) ? answer.statusText : "",
      headers: responseHeaders,
    });
  } catch {
    throw new OutboundError("answer", OUTBOUND_TEXT.badAnswer);
  }
  Object.defineProperty(response, "url", { value: target.url.href });
  return response;
}
