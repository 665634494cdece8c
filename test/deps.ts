/**
 * The seam below HTTP: a feature's services and the homes' rules (features/users, features/organisations)
 * called with the `Deps` the app would give them (a real database, the test clock, a real SMTP capture,
 * the audit log, the rate limiter, the background runner, the registry's features) and no Fastify: no routes to register, no
 * plugins to make ready, no requests to inject. For rules that need no server; HTTP tests keep
 * `buildTestApp`.
 */
import { loadConfig } from "@server/config";
import type { Deps, Log } from "@server/context";
import { FEATURES } from "@server/features";
import { AuditLog } from "@server/lib/audit";
import { background } from "@server/lib/background";
import type { Clock } from "@server/lib/clock";
import { RateLimiter } from "@server/lib/rate-limit";
import { smtpMailer } from "@server/mail/mailer";
import { freshDatabase, MailCapture, type TestApp, testClock } from "./helpers";

/** A log that keeps what it was given, for the tests that assert a failure was reported. */
export type KeptLog = Log & { lines: Array<{ level: "error" | "warn" | "info"; fields: object; message: string }> };

function keptLog(): KeptLog {
  const lines: KeptLog["lines"] = [];
  return {
    lines,
    error: (fields, message) => lines.push({ level: "error", fields, message }),
    warn: (fields, message) => lines.push({ level: "warn", fields, message }),
    info: (fields, message) => lines.push({ level: "info", fields, message }),
  };
}

export type TestDeps = Pick<TestApp, "database" | "clock" | "mail" | "config"> & {
  deps: Deps;
  log: KeptLog;
  close(): Promise<void>;
};

/** The services' dependencies on a fresh database, as the `deps` plugin builds them for the app (test/helpers.ts's settings). */
export async function testDeps(opts: { env?: Record<string, string> } = {}): Promise<TestDeps> {
  const mail = await new MailCapture().start();
  const database = await freshDatabase();
  const clock = testClock();
  const config = loadConfig({
    APP_SECRET: "test-secret-test-secret-test-secret-42",
    DATA_DIR: "/tmp/callproof-test-unused",
    SMTP_URL: mail.url,
    LOG_LEVEL: "silent",
    PUBLIC_URL: "http://localhost:3000",
    OUTBOUND_ALLOWED_HOSTS: "loopback",
    ...opts.env,
  });
  const log = keptLog();
  const mailer = smtpMailer(mail.url, config.mailFrom);
  const now = () => clock.now();
  const deps: Deps = {
    config,
    db: database.db,
    notifications: database.notifications,
    clock: clock as Clock,
    mailer,
    audit: new AuditLog(database.db, now),
    limits: new RateLimiter(database.db),
    log,
    background: background(log),
    features: [...FEATURES],
  };
  return {
    deps,
    database,
    clock,
    mail,
    config,
    log,
    async close() {
      await deps.background.stop();
      mailer.close();
      await mail.close();
      await database.release();
    },
  };
}
