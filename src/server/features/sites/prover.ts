import { Resolver } from "node:dns/promises";
import {
  type OutboundPolicy,
  outboundFetch,
  type Resolve,
  type ResolvedAddress,
  withResolver,
} from "@server/lib/outbound";
import { SITE_PROOF } from "@shared/sites";

export type Proof = "dns" | "well-known";

export type ProverSettings = {
  /** DNS servers (`ip` or `ip:port`) for every look-up; empty: the system's */
  dnsServers: string[];
  /** where the server may connect (OUTBOUND_ALLOWED_HOSTS): the file is fetched only from hosts it allows */
  outbound: OutboundPolicy;
  /** the port of the plain-http attempt (made only for hosts the policy allows over http): 80, or a test server's */
  httpPort: number;
  /** deadline of one whole file fetch, redirects included */
  timeoutMs: number;
};

/** Looks up a site's proof: the DNS record first, then the well-known file. */
export type Prover = { prove(host: string, token: string): Promise<Proof | null> };

/** Largest well-known file read; the token is 32 characters. */
const MAX_FILE_BYTES = 1024;
const MAX_REDIRECTS = 3;

export function siteProver(settings: ProverSettings): Prover {
  const resolver = new Resolver({ timeout: Math.min(settings.timeoutMs, 2000), tries: 2 });
  if (settings.dnsServers.length > 0) resolver.setServers(settings.dnsServers);
  // The file's host is looked up through the same DNS servers as the record.
  const policy =
    settings.dnsServers.length > 0 ? withResolver(settings.outbound, resolverLookup(resolver)) : settings.outbound;
  return {
    async prove(host, token) {
      if (await hasDnsRecord(resolver, host, token)) return "dns";
      if (await hasWellKnownFile(policy, settings, host, token)) return "well-known";
      return null;
    },
  };
}

/** `_callproof.<host>` has a TXT record `callproof-site-verification=<token>` (its strings joined). */
async function hasDnsRecord(resolver: Resolver, host: string, token: string): Promise<boolean> {
  try {
    const records = await resolver.resolveTxt(SITE_PROOF.dnsName(host));
    return records.some((chunks) => chunks.join("").trim() === SITE_PROOF.dnsValue(token));
  } catch {
    // No such name, no TXT record, a timeout: no proof.
    return false;
  }
}

/** Names looked up through the prover's own DNS servers (SITE_DNS_SERVERS), both families. */
function resolverLookup(resolver: Resolver): Resolve {
  return async (host) => {
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
    const found: ResolvedAddress[] = [
      ...(v4.status === "fulfilled" ? v4.value.map((address) => ({ address, family: 4 as const })) : []),
      ...(v6.status === "fulfilled" ? v6.value.map((address) => ({ address, family: 6 as const })) : []),
    ];
    if (found.length === 0) throw new Error("no address");
    return found;
  };
}

/**
 * `https://<host>/.well-known/callproof-site-verification.txt` holds the token on a line of its own; when
 * OUTBOUND_ALLOWED_HOSTS allows the host for plain http (loopback, private, by name or by range), the same
 * path over http is tried next. Every request goes through the outbound path (each address checked, the
 * connection pinned to a checked one); redirects are followed only on the same host, scheme and port;
 * the body is read up to 1 KiB; the whole check has one short deadline.
 */
async function hasWellKnownFile(policy: OutboundPolicy, settings: ProverSettings, host: string, token: string) {
  const deadline = Date.now() + settings.timeoutMs;
  const origins = [`https://${host}`, `http://${host}${settings.httpPort === 80 ? "" : `:${settings.httpPort}`}`];
  for (const origin of origins) {
    let url = new URL(`${origin}${SITE_PROOF.filePath}`);
    try {
      for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
        const left = deadline - Date.now();
        if (left <= 0) return false;
        const res = await outboundFetch(policy, url, {
          headers: { accept: "text/plain", "user-agent": "CallProof site check" },
          timeoutMs: left,
          connectTimeoutMs: Math.min(left, 2000),
          maxBytes: MAX_FILE_BYTES,
        });
        const location = res.headers.get("location");
        if (res.status >= 300 && res.status < 400 && location) {
          const next = new URL(location, url);
          if (next.hostname !== url.hostname || next.protocol !== url.protocol || next.port !== url.port) break;
          url = next;
          continue;
        }
        if (res.status !== 200) break;
        if ((await res.text()).split(/\r?\n/).some((line) => line.trim() === token)) return true;
        break;
      }
    } catch {
      // Refused by the policy, unreachable, timed out, too large: no proof from this origin.
    }
  }
  return false;
}
