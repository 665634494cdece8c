import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { launchChromium, pathIs, signInThroughUi } from "@test/chromium";
import { buildTestApp, type TestApp } from "@test/helpers";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const WEB_INDEX = path.join(ROOT, "dist/web/index.html");
const WIDGET_JS = path.join(ROOT, "dist/web/widget.js");

/** Newest modification time of any file under these paths (0 if none exist). */
function newestMtime(paths: string[]): number {
  let newest = 0;
  const visit = (p: string) => {
    if (!existsSync(p)) return;
    const stat = statSync(p);
    if (stat.isDirectory()) {
      for (const entry of readdirSync(p)) visit(path.join(p, entry));
    } else newest = Math.max(newest, stat.mtimeMs);
  };
  for (const p of paths) visit(path.join(ROOT, p));
  return newest;
}

function mtime(file: string): number {
  return existsSync(file) ? statSync(file).mtimeMs : 0;
}

/**
 * Builds the web app (and the widget, which the web build's emptyOutDir removes) when the
 * build is missing or older than its sources, so the tests never run an outdated UI.
 */
export function ensureWebBuild(): void {
  const webSources = newestMtime(["src/web", "src/shared", "vite.config.ts"]);
  let rebuiltWeb = false;
  if (mtime(WEB_INDEX) === 0 || mtime(WEB_INDEX) < webSources) {
    execFileSync("npx", ["vite", "build", "--logLevel", "warn"], { cwd: ROOT, stdio: "inherit" });
    rebuiltWeb = true;
  }
  const widgetEntry = path.join(ROOT, "src/widget/widget.ts");
  if (existsSync(widgetEntry) && (rebuiltWeb || mtime(WIDGET_JS) < newestMtime(["src/widget", "src/shared"]))) {
    try {
      execFileSync("npx", ["tsx", "scripts/build-widget.ts"], { cwd: ROOT, stdio: "inherit" });
    } catch (error) {
      console.warn("e2e: the widget build failed; pages that load /widget.js will not work", error);
    }
  }
}

/** A TCP port that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export type E2eServer = TestApp & { url: string };

/**
 * The real server, in-process, on a fresh database with captured mail, listening on
 * http://localhost:PORT. PUBLIC_URL is that origin, so the server's CSRF Origin check
 * accepts the browser's requests.
 */
export async function startServer(env: Record<string, string> = {}): Promise<E2eServer> {
  ensureWebBuild();
  const port = await freePort();
  const url = `http://localhost:${port}`;
  const t = await buildTestApp({ env: { PORT: String(port), PUBLIC_URL: url, ...env } });
  await t.app.listen({ port, host: "127.0.0.1" });
  return { ...t, url };
}

/** The machine's Chromium, headless. */
export function launchBrowser(): Promise<Browser> {
  return launchChromium();
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

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(env), launchBrowser()]);
  });

  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });

  afterAll(async () => {
    await browser?.close();
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
