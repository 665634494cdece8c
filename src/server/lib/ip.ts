import { isIPv6 } from "node:net";
import { type SQL, sql } from "drizzle-orm";

/**
 * The rate-limit key for a client address: IPv4 as is, IPv6 grouped by its /64
 * (one subscriber usually holds a whole /64). IPv4-mapped IPv6 counts as IPv4.
 */
export function ipKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped?.[1]) return mapped[1];
  if (!isIPv6(ip)) return ip;
  const [head = "", tail = ""] = ip.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = ip.includes("::") ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(":")}::/64`;
}

/**
 * `ipKey` in SQL, for counting distinct clients over stored addresses: IPv4 as is, IPv6 by its /64
 * (IPv4-mapped IPv6 as its IPv4). `ip` is an expression of type text holding an address or a cut prefix.
 */
export const ipKeySql = (ip: SQL) =>
  sql`case
    when ${ip} ~* '^::ffff:[0-9.]+$' then substring(${ip} from 8)
    when position(':' in ${ip}) > 0 then network(set_masklen(${ip}::inet, 64))::text
    else ${ip} end`;

/**
 * The coarse network of a client address for limits that a provider's whole allocation shares: an IPv6
 * address's /48 (`2001:db8:5::/48`; a site usually gets a /48 or a /56 within one), or null for IPv4
 * (IPv4-mapped IPv6 included), whose addresses are scarce enough to count one by one.
 */
export function ipv6Network48(ip: string): string | null {
  const key = ipKey(ip);
  if (!key.endsWith("::/64")) return null;
  return `${key.slice(0, -"::/64".length).split(":").slice(0, 3).join(":")}::/48`;
}
