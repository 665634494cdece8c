import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  checkOutboundUrl,
  judgeAddress,
  OUTBOUND_TEXT,
  OutboundError,
  outboundFetch,
  parseOutboundPolicy,
  type ResolvedAddress,
  withResolver,
} from "./outbound";

type Seen = { method: string; url: string; host: string; body: string; headers: IncomingMessage["headers"] };

/** A real HTTP server on loopback; each path answers as `routes` says. */
class LoopbackServer {
  readonly seen: Seen[] = [];
  routes = new Map<string, (res: ServerResponse, req: IncomingMessage) => void>();
  /** TCP connections accepted */
  connections = 0;
  private server: Server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      this.seen.push({
        method: req.method ?? "",
        url: req.url ?? "",
        host: req.headers.host ?? "",
        body,
        headers: req.headers,
      });
      const route = this.routes.get(req.url ?? "");
      if (route) route(res, req);
      else res.writeHead(200, { "content-type": "text/plain", "x-extra": "yes" }).end("hello");
    });
  });
  port = 0;
  async start() {
    this.server.on("connection", () => this.connections++);
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }
  stop() {
    this.server.closeAllConnections();
    return new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

let server: LoopbackServer;
beforeAll(async () => {
  server = await new LoopbackServer().start();
});
afterAll(async () => {
  await server.stop();
});
beforeEach(() => {
  server.seen.length = 0;
  server.routes.clear();
});

const policy = (text: string) => parseOutboundPolicy(text);
const allowed = (text: string, address: string, host: string | null = null) =>
  judgeAddress(policy(text), host, address).allowed;

/** What an outbound call threw: its step and message. */
async function refusal(call: Promise<unknown>) {
  try {
    await call;
  } catch (err) {
    if (err instanceof OutboundError) return { step: err.step, message: err.message };
    throw err;
  }
  throw new Error("the call was not refused");
}

/** A resolver that answers from a table and counts its calls. */
function tableResolver(table: Record<string, string[] | string[][]>) {
  const calls: string[] = [];
  const resolve = async (host: string): Promise<ResolvedAddress[]> => {
    const answers = table[host];
    if (!answers) throw new Error("ENOTFOUND");
    // A list of lists is a sequence of answers (a rebinding DNS server); a flat list is the same every time.
    const n = calls.filter((c) => c === host).length;
    calls.push(host);
    const list = Array.isArray(answers[0])
      ? ((answers as string[][])[Math.min(n, answers.length - 1)] ?? [])
      : (answers as string[]);
    return list.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  return { resolve, calls };
}

describe("parseOutboundPolicy", () => {
  it("reads keywords, names, wildcard names, addresses and ranges", () => {
    const p = policy(
      " External , loopback,private,*,hooks.corp.example,*.corp.example,10.1.2.3,[fd00::1],192.168.0.0/16,2001:db8::/32 ",
    );
    expect(p.entries).toHaveLength(10);
    expect(p.text).toBe(
      "external,loopback,private,*,hooks.corp.example,*.corp.example,10.1.2.3,[fd00::1],192.168.0.0/16,2001:db8::/32",
    );
  });

  it("refuses a bad entry, naming it", () => {
    for (const bad of [
      "hooks_corp.example",
      "hooks corp.example",
      "10.0.0.0/33",
      "10.0.0.0/8/1",
      "fd00::/129",
      "hooks.example/24",
      "*foo.example",
      "*.*.example",
      "-bad.example",
      "https://hooks.example",
      "127.1",
      `${"x".repeat(64)}.example`,
    ]) {
      expect(() => policy(`external,${bad}`), bad).toThrow(`"${bad.toLowerCase()}"`);
    }
    expect(() => policy("")).toThrow(/no entries/);
    expect(() => policy(" , ")).toThrow(/no entries/);
  });
});

describe("judgeAddress", () => {
  it("external takes public unicast addresses only", () => {
    for (const address of ["93.184.216.34", "8.8.8.8", "2606:4700::6810:84e5", "::ffff:8.8.8.8", "2002:0808:0808::1"])
      expect(judgeAddress(policy("external"), null, address), address).toEqual({ allowed: true, byOperator: false });
    for (const address of [
      "127.0.0.1",
      "127.9.9.9",
      "::1",
      "10.0.0.1",
      "172.16.5.4",
      "192.168.1.1",
      "100.64.0.1",
      "fc00::1",
      "fd12:3456::1",
      "0.0.0.0",
      "::",
      "224.0.0.1",
      "255.255.255.255",
      "192.0.2.1",
      "not an address",
    ])
      expect(allowed("external", address), address).toBe(false);
  });

  it("loopback and private take their ranges, as the operator's choice", () => {
    for (const address of ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"])
      expect(judgeAddress(policy("loopback"), null, address), address).toEqual({ allowed: true, byOperator: true });
    expect(allowed("loopback", "10.0.0.1")).toBe(false);
    for (const address of [
      "10.0.0.1",
      "172.31.255.255",
      "192.168.0.10",
      "100.64.1.1",
      "100.127.255.254",
      "fd12::1",
      "fc00::5",
    ])
      expect(judgeAddress(policy("private"), null, address), address).toEqual({ allowed: true, byOperator: true });
    expect(allowed("private", "127.0.0.1")).toBe(false);
    expect(allowed("private", "172.32.0.1")).toBe(false);
  });

  it("refuses link-local and metadata addresses under every entry unless listed by address", () => {
    const special = [
      "169.254.169.254",
      "169.254.0.1",
      "fe80::1",
      "fe80::1%eth0",
      "fd00:ec2::254",
      "100.100.100.200",
      "::7f00:1",
      "::a9fe:a9fe",
      "0.0.0.0",
    ];
    for (const text of [
      "external",
      "loopback",
      "private",
      "*",
      "external,loopback,private,*",
      "0.0.0.0/0,::/0",
      "100.64.0.0/10",
      "fd00::/8",
      "169.0.0.0/8",
    ])
      for (const address of special) expect(allowed(text, address), `${text} ${address}`).toBe(false);
    expect(allowed("169.254.169.254", "169.254.169.254")).toBe(true);
    expect(allowed("169.254.169.254", "169.254.169.253")).toBe(false);
    expect(allowed("169.254.0.0/16", "169.254.1.1")).toBe(true);
    expect(allowed("fd00:ec2::254", "fd00:ec2::254")).toBe(true);
    expect(allowed("100.100.100.200", "100.100.100.200")).toBe(true);
    expect(allowed("fe80::/10", "fe80::1%eth0")).toBe(true);
  });

  it("judges IPv4-mapped, NAT64, 6to4 and Teredo addresses by the IPv4 address they carry", () => {
    const carrying = (v4: string) => {
      const [a, b, c, d] = v4.split(".").map(Number) as [number, number, number, number];
      const hi = ((a << 8) | b).toString(16);
      const lo = ((c << 8) | d).toString(16);
      const tHi = (~((a << 8) | b) & 0xffff).toString(16);
      const tLo = (~((c << 8) | d) & 0xffff).toString(16);
      return [
        `::ffff:${v4}`,
        `64:ff9b::${hi}:${lo}`,
        `64:ff9b:1::${hi}:${lo}`,
        `2002:${hi}:${lo}::1`,
        `2001:0:4136:e378:8000:63bf:${tHi}:${tLo}`,
      ];
    };
    for (const address of carrying("169.254.169.254")) {
      expect(allowed("*", address), address).toBe(false);
      expect(allowed("169.254.169.254", address), address).toBe(true);
    }
    for (const address of carrying("127.0.0.1")) {
      expect(allowed("external", address), address).toBe(false);
      expect(allowed("loopback", address), address).toBe(true);
    }
    for (const address of carrying("10.1.2.3")) {
      expect(allowed("external", address), address).toBe(false);
      expect(allowed("private", address), address).toBe(true);
    }
    for (const address of carrying("8.8.8.8")) expect(allowed("external", address), address).toBe(true);
  });

  it("names and ranges are the operator's choice; `*` is not", () => {
    expect(judgeAddress(policy("hooks.corp.example"), "hooks.corp.example", "10.0.0.5")).toEqual({
      allowed: true,
      byOperator: true,
    });
    expect(allowed("hooks.corp.example", "10.0.0.5", "other.corp.example")).toBe(false);
    expect(allowed("*.corp.example", "10.0.0.5", "a.b.corp.example")).toBe(true);
    expect(allowed("*.corp.example", "10.0.0.5", "corp.example")).toBe(false);
    expect(allowed("*.corp.example", "10.0.0.5", "evilcorp.example")).toBe(false);
    // An international name matches the ASCII form URLs carry.
    expect(allowed("hooks.bücher.example", "10.0.0.5", new URL("https://hooks.bücher.example/").hostname)).toBe(true);
    // A name entry never allows a metadata address.
    expect(allowed("hooks.corp.example", "169.254.169.254", "hooks.corp.example")).toBe(false);
    expect(judgeAddress(policy("10.0.0.0/8"), null, "10.9.9.9")).toEqual({ allowed: true, byOperator: true });
    expect(judgeAddress(policy("*"), null, "10.9.9.9")).toEqual({ allowed: true, byOperator: false });
  });
});

describe("outboundFetch", () => {
  const url = (path = "/x", host = "127.0.0.1") => `http://${host}:${server.port}${path}`;

  it("reaches a loopback server the policy allows and answers a Response", async () => {
    const res = await outboundFetch(policy("loopback"), url("/hello"), {
      method: "POST",
      headers: { "content-type": "application/json", "x-test": "1" },
      body: '{"a":1}',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-extra")).toBe("yes");
    expect(await res.text()).toBe("hello");
    expect(res.url).toBe(url("/hello"));
    expect(server.seen).toMatchObject([{ method: "POST", url: "/hello", body: '{"a":1}', headers: { "x-test": "1" } }]);

    const form = await outboundFetch(policy("loopback"), url("/form"), {
      method: "POST",
      body: new URLSearchParams({ a: "b c" }),
    });
    expect(form.status).toBe(200);
    expect(server.seen[1]).toMatchObject({
      body: "a=b+c",
      headers: { "content-type": "application/x-www-form-urlencoded;charset=UTF-8" },
    });
  });

  it("resolves localhost without DNS", async () => {
    const res = await outboundFetch(policy("loopback"), url("/local", "localhost"));
    expect(res.status).toBe(200);
    expect(server.seen[0]?.host).toBe(`localhost:${server.port}`);
  });

  it("refuses loopback, private and metadata targets by default, before connecting", async () => {
    const external = policy("external");
    for (const target of [
      `https://localhost:${server.port}/`,
      `https://127.0.0.1:${server.port}/`,
      "https://10.0.0.1/",
      "https://[fd00::1]/",
      "https://169.254.169.254/latest/meta-data/",
      "https://[::ffff:169.254.169.254]/",
    ])
      expect(await refusal(outboundFetch(external, target)), target).toEqual({
        step: "address",
        message: OUTBOUND_TEXT.address,
      });
    // Plain http is refused before any look-up when the policy allows no host over http.
    expect(await refusal(outboundFetch(external, url()))).toEqual({
      step: "url",
      message: OUTBOUND_TEXT.httpsRequired,
    });
    expect(server.seen).toEqual([]);
  });

  it("needs https unless the operator allows the host as loopback, private, by name or by range", async () => {
    expect(await refusal(outboundFetch(policy("*"), url()))).toEqual({
      step: "url",
      message: OUTBOUND_TEXT.httpsRequired,
    });
    for (const text of ["loopback", "127.0.0.0/8", "127.0.0.1"])
      expect((await outboundFetch(policy(text), url())).status, text).toBe(200);
    const { resolve } = tableResolver({ "hooks.corp.test": ["127.0.0.1"] });
    const byName = withResolver(policy("hooks.corp.test"), resolve);
    expect((await outboundFetch(byName, url("/n", "hooks.corp.test"))).status).toBe(200);
    expect(server.seen.at(-1)?.host).toBe(`hooks.corp.test:${server.port}`);
  });

  it("checks every address a name resolves to, and pins the connection to the checked one", async () => {
    const dns = tableResolver({
      "mixed.test": ["8.8.8.8", "127.0.0.1"],
      "meta.test": ["169.254.169.254"],
      "lan.test": ["192.168.1.20"],
      "rebind.test": [["127.0.0.1"], ["169.254.169.254"]],
    });
    const external = withResolver(policy("external"), dns.resolve);
    for (const host of ["mixed.test", "meta.test", "lan.test"])
      expect(await refusal(outboundFetch(external, `https://${host}/`)), host).toEqual({
        step: "address",
        message: OUTBOUND_TEXT.address,
      });
    expect(await refusal(outboundFetch(external, "https://nowhere.test/"))).toEqual({
      step: "resolve",
      message: OUTBOUND_TEXT.resolve,
    });
    // `*` does not open the metadata address to a name either.
    expect((await refusal(outboundFetch(withResolver(policy("*"), dns.resolve), "https://meta.test/"))).step).toBe(
      "address",
    );

    // Checked once, connected to what was checked: a second answer pointing at the metadata address is never asked for.
    const loop = withResolver(policy("loopback"), dns.resolve);
    const res = await outboundFetch(loop, url("/pinned", "rebind.test"));
    expect(res.status).toBe(200);
    expect(dns.calls.filter((h) => h === "rebind.test")).toHaveLength(1);
    expect(server.seen.map((s) => s.url)).toEqual(["/pinned"]);
  });

  it("with keepAlive, sends on one kept connection, and once more on a new one when a kept one was closed", async () => {
    const post = (path: string) =>
      outboundFetch(policy("loopback"), url(path), { method: "POST", body: "{}", keepAlive: true });
    const before = server.connections;
    for (let i = 0; i < 3; i++) expect((await post("/kept")).status).toBe(200);
    expect(server.connections).toBe(before + 1);
    // Without it, every request has its own connection, closed after the answer.
    await outboundFetch(policy("loopback"), url("/own"));
    await outboundFetch(policy("loopback"), url("/own"));
    expect(server.connections).toBe(before + 3);

    // The server drops the kept connection as the next request arrives on it (its idle timeout, just then):
    // the request goes again on a new connection and is answered.
    const requestsOn = new WeakMap<object, number>();
    server.routes.set("/dropped-when-kept", (res, req) => {
      const n = (requestsOn.get(req.socket) ?? 0) + 1;
      requestsOn.set(req.socket, n);
      if (n === 2) req.socket.destroy();
      else res.end("ok");
    });
    expect((await post("/dropped-when-kept")).status).toBe(200);
    const connections = server.connections;
    const again = await post("/dropped-when-kept");
    expect(again.status).toBe(200);
    expect(server.connections).toBe(connections + 1);
    expect(server.seen.filter((s) => s.url === "/dropped-when-kept")).toHaveLength(3);
  });

  it("returns a redirect as it is, without following it", async () => {
    server.routes.set("/moved", (res) => res.writeHead(302, { location: "/target" }).end());
    const res = await outboundFetch(policy("loopback"), url("/moved"));
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/target");
    expect(server.seen.map((s) => s.url)).toEqual(["/moved"]);
    expect(await refusal(outboundFetch(policy("loopback"), url("/moved"), { redirect: "error" }))).toEqual({
      step: "answer",
      message: OUTBOUND_TEXT.redirect,
    });
  });

  it("caps the answer's size and time, and says so without a status or a port", async () => {
    server.routes.set("/big", (res) => res.writeHead(200).end("x".repeat(200_000)));
    server.routes.set("/never", () => {});
    server.routes.set("/slow-body", (res) => {
      res.writeHead(200);
      res.write("partial");
    });
    const loop = policy("loopback");
    expect(await refusal(outboundFetch(loop, url("/big"), { maxBytes: 100_000 }))).toEqual({
      step: "answer",
      message: OUTBOUND_TEXT.tooLarge,
    });
    expect((await outboundFetch(loop, url("/big"), { maxBytes: 200_000 })).status).toBe(200);
    const started = performance.now();
    expect(await refusal(outboundFetch(loop, url("/never"), { timeoutMs: 300 }))).toEqual({
      step: "timeout",
      message: OUTBOUND_TEXT.timeout,
    });
    expect(await refusal(outboundFetch(loop, url("/slow-body"), { timeoutMs: 300 }))).toEqual({
      step: "timeout",
      message: OUTBOUND_TEXT.timeout,
    });
    expect(performance.now() - started).toBeLessThan(3000);
  });

  it("says only 'could not connect' when nothing listens, and honours the caller's signal", async () => {
    const closed = await new LoopbackServer().start();
    await closed.stop();
    const failed = await refusal(outboundFetch(policy("loopback"), `http://127.0.0.1:${closed.port}/`));
    expect(failed).toEqual({ step: "connect", message: OUTBOUND_TEXT.connect });
    expect(failed.message).not.toContain(String(closed.port));

    // https to a server that speaks plain http: the TLS handshake fails, and the words are the same.
    expect((await refusal(outboundFetch(policy("loopback"), `https://localhost:${server.port}/`))).message).toBe(
      OUTBOUND_TEXT.connect,
    );

    server.routes.set("/hang", () => {});
    const controller = new AbortController();
    const pending = outboundFetch(policy("loopback"), url("/hang"), { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
  });

  it.skipIf(!existsSync("/usr/bin/openssl"))("verifies the certificate of an https server", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "callproof-tls-"));
    execFileSync(
      "/usr/bin/openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=localhost",
        "-addext",
        "subjectAltName=DNS:localhost,IP:127.0.0.1",
        "-keyout",
        path.join(dir, "key.pem"),
        "-out",
        path.join(dir, "cert.pem"),
      ],
      { stdio: "ignore" },
    );
    let requests = 0;
    const tls = createTlsServer(
      { key: readFileSync(path.join(dir, "key.pem")), cert: readFileSync(path.join(dir, "cert.pem")) },
      (_req, res) => {
        requests++;
        res.end("secret");
      },
    );
    await new Promise<void>((resolve) => tls.listen(0, "127.0.0.1", resolve));
    try {
      const port = (tls.address() as AddressInfo).port;
      // A certificate nobody vouches for is refused like any failed connection; nothing is sent.
      expect(await refusal(outboundFetch(policy("loopback"), `https://localhost:${port}/`))).toMatchObject({
        message: OUTBOUND_TEXT.connect,
      });
      expect(requests).toBe(0);
    } finally {
      await new Promise<void>((resolve) => tls.close(() => resolve()));
    }
  });

  it("with standardPortsOnly, takes other ports than 443 and 80 only for hosts the operator allows", async () => {
    expect(
      await refusal(checkOutboundUrl(policy("*"), `https://127.0.0.1:${server.port}/`, { standardPortsOnly: true })),
    ).toEqual({ step: "url", message: OUTBOUND_TEXT.port });
    expect(
      (await checkOutboundUrl(policy("*"), "https://127.0.0.1:443/", { standardPortsOnly: true })).byOperator,
    ).toBe(false);
    expect((await outboundFetch(policy("loopback"), url(), { standardPortsOnly: true })).status).toBe(200);
  });

  it("refuses URLs that are not http(s), carry credentials or do not parse", async () => {
    const loop = policy("loopback");
    expect(await refusal(outboundFetch(loop, "ftp://127.0.0.1/"))).toEqual({
      step: "url",
      message: OUTBOUND_TEXT.scheme,
    });
    expect(await refusal(outboundFetch(loop, `http://u:p@127.0.0.1:${server.port}/`))).toEqual({
      step: "url",
      message: OUTBOUND_TEXT.credentials,
    });
    expect(await refusal(outboundFetch(loop, "not a url"))).toEqual({ step: "url", message: OUTBOUND_TEXT.invalidUrl });
    expect(server.seen).toEqual([]);
  });

  it("no message names a status, a port or an answer's content", () => {
    // (the port message names the ports that are always allowed, not the target's)
    for (const [key, text] of Object.entries(OUTBOUND_TEXT)) if (key !== "port") expect(text).not.toMatch(/\d/);
  });
});
