import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { throwawayPostgres } from "@test/helpers";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "./support";

/** The README's run command (`npm start`: node scripts/start.mjs), as a new user would use it: a real process. */
const ROOT = path.resolve(import.meta.dirname, "..");
const START = path.join(ROOT, "scripts/start.mjs");

/**
 * These tests run real processes: builds, PGlite's first start, the operator CLI. On a 2-core machine
 * running the rest of the suite they took up to a minute each, two thirds of the browser project's 90 s,
 * and timed out when the machine was busier: they get the time their work needs.
 */
const START_WAIT_MS = 120_000;
const PROCESSES = { timeout: 240_000 };

type Server = {
  proc: ChildProcess;
  url: string;
  output: () => string;
  /** Resolves with the first match of `pattern` in the output as soon as it is written (waiting at most `timeoutMs`). */
  waitForOutput: (pattern: RegExp, timeoutMs?: number) => Promise<RegExpExecArray>;
};
const running: ChildProcess[] = [];

async function start(env: Record<string, string>, root = ROOT): Promise<Server> {
  const port = await freePort();
  let out = "";
  const proc = spawn(process.execPath, [path.join(root, "scripts/start.mjs")], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", PORT: String(port), ...env },
  });
  running.push(proc);
  const watchers = new Set<() => void>();
  const take = (d: Buffer) => {
    out += d;
    for (const watcher of watchers) watcher();
  };
  proc.stdout?.on("data", take);
  proc.stderr?.on("data", take);
  const waitForOutput = (pattern: RegExp, timeoutMs = START_WAIT_MS) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = () => {
        const found = pattern.exec(out);
        if (!found) return;
        clearTimeout(timer);
        watchers.delete(check);
        resolve(found);
      };
      const timer = setTimeout(() => {
        watchers.delete(check);
        reject(new Error(`no ${pattern} in the output within ${timeoutMs} ms:\n${out}`));
      }, timeoutMs);
      watchers.add(check);
      check();
    });
  const url = `http://localhost:${port}`;
  // A start may build first (a minute on a busy 2-core machine).
  const deadline = Date.now() + START_WAIT_MS;
  for (;;) {
    try {
      const res = await fetch(`${url}/api/auth/whoami`);
      if (res.status === 401) break;
    } catch {}
    if (Date.now() > deadline || proc.exitCode !== null) throw new Error(`server did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return { proc, url, output: () => out, waitForOutput };
}

function stop(proc: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (proc.exitCode !== null) return resolve(proc.exitCode);
    proc.once("exit", (code) => resolve(code));
    proc.kill("SIGTERM");
  });
}

afterEach(async () => {
  for (const p of running.splice(0)) await stop(p);
});

/** A client that keeps cookies and echoes the CSRF token, like the web app. */
function client(url: string) {
  const jar = new Map<string, string>();
  return async (method: string, p: string, body?: unknown) => {
    const res = await fetch(url + p, {
      method,
      headers: {
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; "),
        "x-xsrf-token": jar.get("XSRF-TOKEN") ?? "",
        ...(body ? { "content-type": "application/json" } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair = ""] = c.split(";");
      const [k = "", v = ""] = pair.split("=");
      jar.set(k, v);
    }
    return res;
  };
}

describe("npm start with nothing configured", () => {
  it("serves the app, tells how to create the first admin, and stops cleanly on SIGTERM", PROCESSES, async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "callproof-start-"));
    const s = await start({ DATA_DIR: dataDir });
    expect(s.output()).toContain("npm run admin -- create --email");
    const page = await fetch(`${s.url}/login`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
    const widget = await fetch(`${s.url}/widget.js`);
    expect(widget.status).toBe(200);
    expect(await stop(s.proc)).toBe(0);
    expect(existsSync(path.join(dataDir, "app-secret"))).toBe(true);

    // The operator CLI creates the first admin; its password comes on standard input.
    const cli = spawnSync(process.execPath, [START, "cli", "create", "--email", "Boss@Example.com"], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", DATA_DIR: dataDir },
      input: "Launch-Day-2026!\n",
      encoding: "utf8",
    });
    expect(cli.stdout + cli.stderr).toContain("Admin boss@example.com created");
    expect(cli.status).toBe(0);

    // Restart on the same data: sign in with the code printed by the dev outbox.
    const s2 = await start({ DATA_DIR: dataDir });
    const call = client(s2.url);
    await call("GET", "/api/auth/whoami");
    const login = await call("POST", "/api/auth/login", { email: "boss@example.com", password: "Launch-Day-2026!" });
    expect(login.status).toBe(200);
    const code = (await s2.waitForOutput(/sign-in code.*?\b(\d{6})\b/))[1];
    expect(code).toMatch(/^\d{6}$/);
    const verify = await call("POST", "/api/auth/verify-2fa", { email: "boss@example.com", code });
    expect(verify.status).toBe(200);
    expect(await verify.json()).toEqual({ role: "admin" });
    expect(readdirSync(path.join(dataDir, "outbox")).filter((f) => f.endsWith(".eml"))).toHaveLength(1);
    expect(await stop(s2.proc)).toBe(0);

    // The graceful stop checkpointed every event: the operator CLI proves the audit log intact.
    const audit = spawnSync(process.execPath, [START, "cli", "audit", "verify"], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", DATA_DIR: dataDir },
      encoding: "utf8",
    });
    expect(audit.stdout).toMatch(/^audit log intact: [1-9]\d* events$/m);
    expect(audit.stdout).not.toContain("not checkpointed");
    expect(audit.status).toBe(0);
  });

  it("refuses to start with a bad setting, naming it", () => {
    const res = spawnSync(process.execPath, [START], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", PORT: "not-a-port", DATA_DIR: mkdtempSync(path.join(tmpdir(), "cp-")) },
      encoding: "utf8",
    });
    expect(res.status).toBe(1);
    expect(res.stderr).toContain("PORT");
  });

  it("creates the admin from ADMIN_EMAIL and ADMIN_PASSWORD", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "callproof-start-"));
    const s = await start({ DATA_DIR: dataDir, ADMIN_EMAIL: "ops@example.com", ADMIN_PASSWORD: "Bootstrap-Pass-9!" });
    const call = client(s.url);
    await call("GET", "/api/auth/whoami");
    const login = await call("POST", "/api/auth/login", { email: "ops@example.com", password: "Bootstrap-Pass-9!" });
    expect(login.status).toBe(200);
    expect(s.output()).not.toContain("Bootstrap-Pass-9!");
  });
});

describe("npm start in operation", () => {
  it("on SIGTERM says unavailable first, finishes the request in flight, then exits 0", async () => {
    const s = await start({
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "callproof-stop-")),
      SHUTDOWN_DELAY_SECONDS: "1",
    });
    expect((await fetch(`${s.url}/readyz`)).status).toBe(200);
    // A look-up whose body is still arriving when the signal comes: its first bytes are on the server's
    // connection before the signal, the rest only once the server says it is unavailable.
    const body = JSON.stringify({ words: "one two three" });
    let sendRest = () => {};
    let firstBytesSent = () => {};
    const sent = new Promise<void>((resolve) => {
      firstBytesSent = resolve;
    });
    const inFlight = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(
        `${s.url}/api/verify`,
        { method: "POST", headers: { "content-type": "application/json", "content-length": String(body.length) } },
        (res) => {
          let text = "";
          res.on("data", (d) => (text += d));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on("error", reject);
      req.on("socket", (socket) => socket.once("connect", () => req.write(body.slice(0, 5), () => firstBytesSent())));
      sendRest = () => {
        if (!req.writableEnded) req.end(body.slice(5));
      };
    });
    await sent;
    const exited = stop(s.proc);
    try {
      await s.waitForOutput(/SIGTERM received/);
      const ready = await fetch(`${s.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ status: "unavailable" });
    } finally {
      // Whatever happened above, the request ends, so the server can finish it and exit.
      sendRest();
    }
    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toMatchObject({ verified: false });
    expect(await exited).toBe(0);
    expect(s.output()).toContain("SIGTERM received");
  });

  it("builds when there is no build, rebuilds when a source changed, and not otherwise", PROCESSES, async () => {
    // A copy of the project (its node_modules shared), so the real one's build is left alone.
    const copy = mkdtempSync(path.join(tmpdir(), "callproof-copy-"));
    const files = execFileSync("git", ["ls-files", "-co", "--exclude-standard", "-z"], { cwd: ROOT, encoding: "utf8" })
      .split("\0")
      .filter((f) => f && !f.startsWith("dist/") && existsSync(path.join(ROOT, f)));
    execFileSync("tar", ["-cf", path.join(copy, "src.tar"), "--null", "-T", "-"], {
      cwd: ROOT,
      input: files.join("\0"),
    });
    execFileSync("tar", ["-xf", "src.tar"], { cwd: copy });
    symlinkSync(path.join(ROOT, "node_modules"), path.join(copy, "node_modules"));
    const env = { DATA_DIR: mkdtempSync(path.join(tmpdir(), "callproof-data-")) };

    const first = await start(env, copy);
    expect(first.output()).toContain("No build yet: building first");
    expect(existsSync(path.join(copy, "dist/server/main.js"))).toBe(true);
    expect((await fetch(`${first.url}/api/nowhere`)).status).toBe(404);
    expect(await stop(first.proc)).toBe(0);

    const unchanged = await start(env, copy);
    expect(unchanged.output()).not.toContain("building");
    expect(await stop(unchanged.proc)).toBe(0);

    // As after a git pull: a source newer than the build.
    const messages = path.join(copy, "src/shared/messages.ts");
    writeFileSync(
      messages,
      readFileSync(messages, "utf8").replace('notFound: "Not found."', 'notFound: "Nothing here (rebuilt)."'),
    );
    const changed = await start(env, copy);
    expect(changed.output()).toContain("Sources changed: rebuilding");
    expect(await (await fetch(`${changed.url}/api/nowhere`)).json()).toEqual({
      message: "Nothing here (rebuilt).",
      code: "not_found",
    });
    expect(await stop(changed.proc)).toBe(0);
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)("npm start with WEB_CONCURRENCY=2 on PostgreSQL", () => {
  it("serves from two workers on one port, and /metrics counts both", async () => {
    const scratch = await throwawayPostgres(process.env.TEST_DATABASE_URL ?? "");
    const token = "cluster-metrics-token-42";
    try {
      const s = await start({
        DATABASE_URL: scratch.url,
        WEB_CONCURRENCY: "2",
        METRICS_TOKEN: token,
        DATA_DIR: mkdtempSync(path.join(tmpdir(), "callproof-cluster-")),
      });
      await s.waitForOutput(/2 workers serving/);
      expect(s.output()).toContain("2 workers serving");
      // A new connection each time: the primary hands connections to the workers in turn.
      const once = () =>
        new Promise<number>((resolve, reject) => {
          const body = JSON.stringify({ words: "alpha beta gamma" });
          const req = request(
            `${s.url}/api/verify`,
            { method: "POST", agent: false, headers: { "content-type": "application/json" } },
            (res) => {
              res.resume();
              res.on("end", () => resolve(res.statusCode ?? 0));
            },
          );
          req.on("error", reject);
          req.end(body);
        });
      const statuses: number[] = [];
      for (let i = 0; i < 24; i++) statuses.push(await once());
      expect(statuses.filter((c) => c === 200)).toHaveLength(20);
      expect(statuses.filter((c) => c === 429)).toHaveLength(4);
      const metrics = await (await fetch(`${s.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
      expect(metrics).toContain('callproof_code_lookups_total{outcome="failed"} 20');
      expect(metrics).toContain('callproof_code_lookups_total{outcome="rate_limited"} 4');
      expect(await stop(s.proc)).toBe(0);
    } finally {
      await scratch.drop();
    }
  });
});
