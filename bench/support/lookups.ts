import { WORDS } from "@server/features/codes/words";
import type autocannon from "autocannon";

const pick = () => WORDS[Math.floor(Math.random() * WORDS.length)];
let ipSeq = 0;

/**
 * Widget look-ups for autocannon: random list words, each request from a client IP of its own
 * (X-Forwarded-For, for a server that trusts the loopback proxy), so the per-IP limit never refuses.
 */
export function lookupRequest(path: string): autocannon.Request {
  return {
    method: "POST",
    path,
    setupRequest: (req) => {
      const n = ++ipSeq;
      return {
        ...req,
        headers: {
          "content-type": "application/json",
          "x-forwarded-for": `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
        },
        body: JSON.stringify({ words: `${pick()} ${pick()} ${pick()}` }),
      };
    },
  };
}
