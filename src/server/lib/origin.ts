import { isIP } from "node:net";
import { type SQL, sql } from "drizzle-orm";

/*
 * "This host is that site or under it" (`shop.example.com` is under `example.com`, `badexample.com` is not),
 * the rule of domain locking, of the website shown with a verified code and of e-mail domains, in its three
 * forms: `isHostUnder` (TypeScript, src/shared/sites.ts, for the web app too), `hostUnderSql` (inside a
 * statement) and `siteScope` (a host and its parents, for an index look-up). The sites feature owns the rule
 * and re-exports all three (features/sites/index.ts); they live here, below every feature, only because the
 * two shared homes (users: deactivation by domain; organisations: the owner of an e-mail domain) use it and
 * a home imports no feature.
 */

/** A condition: the host `host` (an SQL text expression) is `parent` or one of its subdomains. */
export function hostUnderSql(host: SQL, parent: SQL): SQL {
  return sql`(${host} = ${parent} or right(${host}, length(${parent}) + 1) = '.' || ${parent})`;
}

/**
 * Which sites a look-up may verify codes for, from its `Origin` header (domain locking):
 * - "any": no Origin (a server-side integration) or the product's own origin: every organisation.
 * - a list of host names: the origin's host and each parent domain of it; the code verifies when its
 *   organisation's e-mail domain or website host is among them (so subdomains are allowed).
 * - an empty list: nothing verifies (`Origin: null`, http other than on localhost, anything malformed).
 */
export type SiteScope = "any" | string[];

/** Hosts where plain http is accepted (a developer's machine). */
const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

export function siteScope(origin: string | undefined, publicOrigin: string): SiteScope {
  if (origin === undefined || origin === publicOrigin) return "any";
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return [];
  }
  // A real Origin header is a serialised origin; anything else (paths, lists, "null") is refused.
  if (url.origin !== origin.toLowerCase()) return [];
  const host = url.hostname.toLowerCase();
  if (url.protocol === "http:" ? !LOCAL_HOSTS.has(host) : url.protocol !== "https:") return [];
  if (isIP(host) || host.startsWith("[")) return [host];
  // Only plain host names go further (an Origin host with a comma or other oddities verifies nothing).
  if (!/^[a-z0-9.-]{1,253}$/.test(host)) return [];
  const labels = host.split(".");
  // "shop.eu.example.com" → shop.eu.example.com, eu.example.com, example.com (never the bare TLD)
  const hosts = labels.slice(0, -1).map((_, i) => labels.slice(i).join("."));
  return hosts.length > 0 ? hosts : [host];
}

/** The host of a well-formed `Origin` header (lower-case, at most 253 characters), else null. */
export function originHost(origin: string | undefined): string | null {
  if (!origin) return null;
  try {
    const url = new URL(origin);
    if (url.origin !== origin.toLowerCase() || !/^https?:$/.test(url.protocol)) return null;
    const host = url.hostname.toLowerCase();
    return /^[a-z0-9.:[\]-]{1,253}$/.test(host) ? host : null;
  } catch {
    return null;
  }
}
