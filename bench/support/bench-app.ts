import { randomBytes } from "node:crypto";
import { buildApp } from "@server/app";
import { loadConfig } from "@server/config";
import type { Database } from "@server/db/client";
import { smtpMailer } from "@server/mail/mailer";

/**
 * The whole product as the benchmarks run it: a fresh secret, the client IP taken from X-Forwarded-For
 * (each request its own address), logging off, and mail to a closed port (nothing is sent).
 */
export async function benchApp(database: Database, dataDir: string) {
  const config = loadConfig({
    APP_SECRET: randomBytes(32).toString("base64url"),
    DATA_DIR: dataDir,
    PUBLIC_URL: "http://localhost:3000",
    TRUST_PROXY: "127.0.0.1",
    LOG_LEVEL: "silent",
  });
  const app = await buildApp({
    config,
    database,
    logger: false,
    mailer: smtpMailer("smtp://127.0.0.1:9", config.mailFrom),
  });
  return { config, app };
}
