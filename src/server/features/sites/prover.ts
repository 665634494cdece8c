import { Resolver } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { isPublicAddress } from "@server/lib/public-address";
import { SITE_PROOF } from "@shared/sites";

export type Proof = "dns" | "well-known";

export type ProverSettings = {
  /** DNS servers (`ip` or `ip:port`) for every look-up; empty: the system's */
  dnsServers: string[];
  /**
   * Tests only: fetch the file over plain http from this port and accept loopback and private
   * addresses. Null in every real deployment: only https, only public addresses.
   */
  testHttpPort: number | null;
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
  return {
    async prove(host, token) {
      if (await hasDnsRecord(resolver, host, token)) return "dns";
      if (await hasWellKnownFile(resolver, settings, host, token)) return "well-known";
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

/** Whether an address is one the server may connect to: public unicast only, outside tests. */
function reachable(address: string, settings: ProverSettings): boolean {
  return settings.testHttpPort !== null || isPublicAddress(address);
}

/** The host's addresses through the same resolver, keeping only those the server may connect to. */
async function addressesOf(resolver: Resolver, settings: ProverSettings, host: string) {
  const [v4, v6] = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
  const found = [
    ...(v4.status === "fulfilled" ? v4.value.map((address) => ({ address, family: 4 })) : []),
    ...(v6.status === "fulfilled" ? v6.value.map((address) => ({ address, family: 6 })) : []),
  ];
  // One private address among public ones makes the whole host suspect (DNS pointing inside).
  return found.every((a) => reachable(a.address, settings)) ? found : [];
}

/**
 * `https://<host>/.well-known/callproof-site-verification.txt` holds the token on a line of its own.
 * The connection goes to an address checked above (so a DNS answer cannot point it inside the network
 * between the check and the request); redirects are followed only on the same host and scheme; the
 * body is read up to 1 KiB; the whole fetch has a short deadline.
 */
async function hasWellKnownFile(
  resolver: Resolver,
  settings: ProverSettings,
  host: string,
  token: string,
): Promise<boolean> {
  const addresses = await addressesOf(resolver, settings, host);
  const pinned = addresses[0];
  if (!pinned) return false;
  const secure = settings.testHttpPort === null;
  const origin = secure ? `https://${host}` : `http://${host}:${settings.testHttpPort}`;
  const signal = AbortSignal.timeout(settings.timeoutMs);
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
  let url = new URL(`${origin}${SITE_PROOF.filePath}`);
  try {
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const answer = await get(url, { secure, lookup, signal });
      if (answer.kind === "body") return answer.text.split(/\r?\n/).some((line) => line.trim() === token);
      if (answer.kind !== "redirect") return false;
      const next = new URL(answer.location, url);
      if (next.hostname !== host || next.protocol !== url.protocol || next.port !== url.port) return false;
      url = next;
    }
  } catch {
    // Refused, reset, timed out, too large: no proof.
  }
  return false;
}

type Answer = { kind: "body"; text: string } | { kind: "redirect"; location: string } | { kind: "refused" };

function get(url: URL, opts: { secure: boolean; lookup: LookupFunction; signal: AbortSignal }): Promise<Answer> {
  const request = opts.secure ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: "GET",
        lookup: opts.lookup,
        signal: opts.signal,
        headers: { accept: "text/plain", "user-agent": "CallProof site check" },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400 && res.headers.location) {
          res.resume();
          resolve({ kind: "redirect", location: res.headers.location });
          return;
        }
        if (status !== 200) {
          res.resume();
          resolve({ kind: "refused" });
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_FILE_BYTES) {
            req.destroy(new Error("well-known file too large"));
            return;
          }
          chunks.push(chunk);
        });
        res.on("end", () => resolve({ kind: "body", text: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end();
  });
}
