/** A webhook receiver on loopback for tests (not a test file itself). */

import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export type Received = { headers: IncomingHttpHeaders; body: string; at: number };

/** A webhook receiver on loopback: records every request and answers with the next status given (200 once they run out). */
export class Receiver {
  readonly received: Received[] = [];
  statuses: number[] = [];
  private server: Server | null = null;
  private waiters: Array<() => void> = [];
  port = 0;

  async start(port = 0) {
    this.server = createServer((req, res) => {
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (chunk) => {
        body += chunk;
      });
      req.on("end", () => {
        this.received.push({ headers: req.headers, body, at: performance.now() });
        res.statusCode = this.statuses.shift() ?? 200;
        res.end("ok");
        for (const w of this.waiters.splice(0)) w();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  get url() {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  async waitFor(count: number, timeoutMs = 10_000) {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < count) {
      if (Date.now() > deadline) throw new Error(`the receiver got ${this.received.length} of ${count} deliveries`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
    return this.received;
  }

  async stop() {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = null;
  }
}
