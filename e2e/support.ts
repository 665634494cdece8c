import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CSRF_COOKIE, sessionCookieName } from "@server/features/users/session";
import { SIGNED_IN_HINT } from "@shared/constants";
import { launchChromium, pathIs, signInThroughUi } from "@test/chromium";
import { buildTestApp, signedIn, type TestApp } from "@test/helpers";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const STAMP = path.join(ROOT, "dist/build-stamp");
/** What the production build is made from (as scripts/start.mjs decides staleness). */
const BUILD_SOURCES = [
  "src",
  "scripts/build.ts",
  "scripts/build-widget.ts",
  "scripts/build-call-status.ts",
  "vite.config.ts",
  "tsconfig.json",
];

/** Newest modification time of any non-test file under these paths (0 if none exist). */
function newestMtime(paths: string[]): number {
  let newest = 0;
  const visit = (p: string) => {
    if (!existsSync(p)) return;
    const stat = statSync(p);
    if (stat.isDirectory()) {
      for (const entry of readdirSync(p)) visit(path.join(p, entry));
    } else if (!p.endsWith(".test.ts")) newest = Math.max(newest, stat.mtimeMs);
  };
  for (const p of paths) visit(path.join(ROOT, p));
  return newest;
}

/**
 * Runs the production build (`npm run build`: web app, widget, server) when dist/ is missing or older than
 * its sources, so the tests never run an outdated UI and `npm start` in e2e/start.test.ts finds it fresh.
 * The browser project's global set-up calls it once before any file starts, so files running side by side
 * never build into dist/ at the same time.
 */
export function ensureBuild(): void {
  const built = existsSync(STAMP) ? statSync(STAMP).mtimeMs : 0;
  if (built === 0 || built < newestMtime(BUILD_SOURCES))
    execFileSync("npm", ["run", "build", "--silent"], {
      cwd: ROOT,
      stdio: "inherit",
      // Vitest sets NODE_ENV=test; the build is the production one that `npm start` serves.
      env: { ...process.env, NODE_ENV: "production" },
    });
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/**
 * axe-core's serious and critical violations on the page (or within the `include` selector), as
 * "rule: targets" lines; injected as a script, since the product's CSP forbids inline ones.
 */
export async function seriousViolations(page: Page, include?: string): Promise<string[]> {
  // once per document: evaluating axe-core's 500 kB again took Chromium 200-270 ms each time
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async (within) => {
    type Result = { id: string; impact: string; nodes: Array<{ target: unknown[] }> };
    type Axe = { run(context: unknown, options: unknown): Promise<{ violations: Result[] }> };
    const axe = (window as unknown as { axe: Axe }).axe;
    // Only the violations are read: axe then does not gather every passing node's details too (a run took
    // half the time on the home page, 160 ms of CPU against 350-410 on this 2-core machine).
    const options = { resultTypes: ["violations"] };
    return (await axe.run(within ? { include: [[within]] } : document, options)).violations;
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

/**
 * Where the browser tests write the screenshots docs/calls.md shows: docs/screenshots with `SCREENSHOTS=docs`
 * (to retake them), else a folder of the system's temp directory, so that `npm test` leaves the checkout as it was.
 */
export const SCREENSHOTS_DIR =
  process.env.SCREENSHOTS === "docs"
    ? path.resolve(import.meta.dirname, "../docs/screenshots")
    : path.join(tmpdir(), "callproof-screenshots");
mkdirSync(SCREENSHOTS_DIR, { recursive: true });

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

/**
 * Opens `pathname` signed in as `user`, for tests about something else than signing in: the session is
 * started as the server's tests start theirs (signedIn: the users feature's own startSession) and its
 * cookies are given to the page's profile, as a browser keeps them after the two sign-in steps. The tests of
 * the sign-in pages and of the account's sessions sign in through the UI (signInThroughUi).
 */
export async function openSignedIn(page: Page, server: E2eServer, user: { id: number }, pathname: string) {
  const signedInBrowser = await signedIn(server, user);
  const session = sessionCookieName(server.config.secureCookies);
  await page.context().addCookies(
    [session, SIGNED_IN_HINT, CSRF_COOKIE].map((name) => ({
      name,
      value: signedInBrowser.cookie(name) ?? "",
      url: server.url,
      httpOnly: name === session,
      sameSite: "Lax" as const,
    })),
  );
  await page.goto(pathname);
  await page.waitForURL(pathIs(pathname));
}

/**
 * Resolves once the page has rendered two more frames: by then whatever the last change of state made React do
 * (its effects, a <Navigate> among them) has happened. For asserting that something did not happen after a
 * change, instead of waiting a fixed time.
 */
export async function settled(page: Page): Promise<void> {
  await page.evaluate(
    () => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))),
  );
}

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

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(env), launchBrowser()]);
  });

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

/**
 * Opens a section of the employer dashboard as a person does: its link in the section navigation, which
 * then marks it as the current page.
 */
export async function openEmployerSection(page: Page, name: string): Promise<void> {
  const link = page
    .getByRole("navigation", { name: "Employer dashboard sections" })
    .getByRole("link", { name, exact: true });
  await link.click();
  await expect.poll(() => link.getAttribute("aria-current")).toBe("page");
}
