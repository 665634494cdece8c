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
 * The coarser key of an IPv6 client: its /48 (`2001:db8:5::/48`; one site's allocation, 65,536 /64s), so
 * that one network cannot multiply a per-/64 budget (code look-ups, reports) by its number of /64s. Null for
 * IPv4 and IPv4-mapped addresses, whose addresses are scarce enough to count one by one.
 */
export function ipNetwork48(ip: string): string | null {
  if (/^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(ip) || !isIPv6(ip)) return null;
  return `${ipKey(ip).split(":").slice(0, 3).join(":")}::/48`;
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
