import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import { launchChromium, pathIs, signInThroughUi } from "@test/chromium";
import { buildTestApp, type TestApp } from "@test/helpers";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, inject } from "vitest";

let built: Promise<void> | undefined;
/** How long a file's set-up may wait for the build (which fails on its own if it fails). */
export const BUILD_WAIT_MS = 300_000;

/**
 * Resolves once the production build the browser files serve (dist/) is fresh: the browser project's
 * global set-up builds it in the background (test/build-once.ts) and answers on its socket when done.
 */
export function awaitBuild(): Promise<void> {
  built ??= new Promise<void>((resolve, reject) => {
    let answer = "";
    const connection = net.connect(inject("buildSocket"));
    connection.setEncoding("utf8");
    connection.on("data", (chunk) => {
      answer += chunk;
    });
    connection.on("error", reject);
    connection.on("end", () =>
      answer === "ok"
        ? resolve()
        : reject(new Error(answer.replace(/^failed\n/, "") || "the build ended with no answer")),
    );
  });
  return built;
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/**
 * axe-core's serious and critical violations on the page (or within the `include` selector), as
 * "rule: targets" lines; injected as a script, since the product's CSP forbids inline ones.
 */
export async function seriousViolations(page: Page, include?: string): Promise<string[]> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async (within) => {
    type Result = { id: string; impact: string; nodes: Array<{ target: unknown[] }> };
    const axe = (window as unknown as { axe: { run(context?: unknown): Promise<{ violations: Result[] }> } }).axe;
    return (await (within ? axe.run({ include: [[within]] }) : axe.run())).violations;
  }, include);
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(", ")}`);
}

/** Whether a server could listen on 127.0.0.1:`port` now (0: any port); the port it got. */
function tryListen(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.on("error", () => resolve(null));
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      const got = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(got));
    });
  });
}

/** Ports handed out by this process, from its own block (see freePort). */
let handedOut = 0;
const PORT_BLOCK = 1000;

/**
 * A TCP port for a server a test starts, free a moment ago. Test workers take it from a block of their
 * own (VITEST_POOL_ID) below the system's ephemeral range (32768-60999 on Linux), in turn: a port the
 * kernel gave for the asking was sometimes taken, before the server listened on it, as the local port of
 * an outgoing connection (EADDRINUSE); no outgoing connection and no other worker takes these. Outside
 * vitest (the benchmarks), any free port.
 */
export async function freePort(): Promise<number> {
  const worker = Number(process.env.VITEST_POOL_ID ?? 0);
  if (!worker) {
    const port = await tryListen(0);
    if (!port) throw new Error("no free TCP port");
    return port;
  }
  const base = 20_000 + ((worker - 1) % 12) * PORT_BLOCK;
  for (let tries = 0; tries < PORT_BLOCK; tries++) {
    const port = base + (handedOut++ % PORT_BLOCK);
    if (await tryListen(port)) return port;
  }
  throw new Error(`no free TCP port in ${base}-${base + PORT_BLOCK - 1}`);
}

export type E2eServer = TestApp & { url: string };

/**
 * The real server, in-process, on a fresh database with captured mail, listening on
 * http://localhost:PORT. PUBLIC_URL is that origin, so the server's CSRF Origin check
 * accepts the browser's requests.
 */
export async function startServer(env: Record<string, string> = {}): Promise<E2eServer> {
  await awaitBuild();
  const port = await freePort();
  const url = `http://localhost:${port}`;
  const t = await buildTestApp({ env: { PORT: String(port), PUBLIC_URL: url, ...env } });
  await t.app.listen({ port, host: "127.0.0.1" });
  return { ...t, url };
}

let sharedBrowser: Promise<Browser> | undefined;

/**
 * The machine's Chromium, headless: one per test worker, shared by the files it runs (each test still
 * gets its own profile, see openPage); launching one per file cost 1-2 s of a core each. It ends with the
 * worker, and a crashed one is launched again.
 */
export function launchBrowser(): Promise<Browser> {
  sharedBrowser ??= launchChromium().then((browser) => {
    browser.on("disconnected", () => {
      sharedBrowser = undefined;
    });
    return browser;
  });
  return sharedBrowser;
}

export const PHONE = { width: 375, height: 800 } as const;
export const DESKTOP = { width: 1280, height: 800 } as const;

/** A fresh browser profile (own cookies) with one page, its relative URLs resolved against the server. */
export async function openPage(
  browser: Browser,
  server: E2eServer,
  viewport: { width: number; height: number } = DESKTOP,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: server.url, viewport });
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  page.on("pageerror", (error) => console.error("page error:", error));
  return { context, page };
}

export { pathIs, signInThroughUi };

export type BrowserSuite = {
  /** the server, once the file's set-up has run */
  readonly server: E2eServer;
  /** A page in a fresh browser profile, closed after the test. */
  newPage(viewport?: { width: number; height: number }): Promise<Page>;
};

/**
 * The set-up a browser test file shares: the server and the browser start before its tests,
 * the profiles its tests opened close after each test, and both stop after the file.
 * Call it once, at the top of the file; more set-up can follow in the file's own hooks. `env` adds to
 * the server's environment.
 */
export function setUpBrowserSuite(env: Record<string, string> = {}): BrowserSuite {
  let server: E2eServer | undefined;
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];

  // The first file may wait for the production build (test/build-once.ts): a minute or more when cold.
  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(env), launchBrowser()]);
  }, BUILD_WAIT_MS);

  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });

  afterAll(async () => {
    // The browser is the worker's (launchBrowser): the file's profiles closed after each test.
    await Promise.all(contexts.splice(0).map((c) => c.close()));
    await server?.close();
  });

  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the ${what} is not started yet: use it inside a test or hook`);
    return value;
  };

  return {
    get server() {
      return started(server, "server");
    },
    async newPage(viewport = DESKTOP) {
      const { context, page } = await openPage(started(browser, "browser"), started(server, "server"), viewport);
      contexts.push(context);
      return page;
    },
  };
}
