import ipaddr from "ipaddr.js";

/** Whether the server may connect to an address of the open internet: public unicast only (no loopback, private, link-local…). */
export function isPublicAddress(address: string): boolean {
  try {
    return ipaddr.process(address).range() === "unicast";
  } catch {
    return false;
  }
}
