import cluster from "node:cluster";
import path from "node:path";
import { buildApp } from "./app";
import { runPrimary } from "./cluster";
import { ConfigError, loadConfig } from "./config";
import { openDatabase } from "./db/client";
import { StartError } from "./db/embedded-lock";
import { ensureAdmin } from "./features/users/admin-accounts";
import { anyAdminExists } from "./features/users/repository";
import { gracefulStop } from "./shutdown";
import { describeSteps, startupSteps } from "./startup-steps";

async function main() {
  const steps = startupSteps();
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  steps.step("config");

  if (config.webConcurrency > 1 && cluster.isPrimary) {
    runPrimary(config.webConcurrency, (line) => console.log(line));
    return;
  }

  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    directUrl: config.databaseDirectUrl,
    dataDir: path.join(config.dataDir, "db"),
    onStep: steps.step,
  });
  const app = await buildApp({ config, database });
  steps.step("app");

  if (config.adminEmail && config.adminPassword) {
    const result = await ensureAdmin(database.db, config.adminEmail, config.adminPassword, new Date());
    app.log.info(`Admin ${config.adminEmail}: ${result === "created" ? "created" : "already exists"}`);
  } else {
    if (!(await anyAdminExists(database.db))) {
      app.log.warn(
        "No admin account yet. Create one with: npm run admin -- create --email you@example.com " +
          "(or start with ADMIN_EMAIL and ADMIN_PASSWORD set).",
      );
    }
  }

  steps.step("admin check");

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info(`${signal} received: finishing in-flight requests, then closing the database`);
    try {
      await gracefulStop(app, database, { delayMs: signal === "SIGTERM" ? config.shutdownDelayMs : 0 });
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, "shutdown failed");
      process.exit(1);
    }
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));

  await app.listen({ port: config.port, host: config.host });
  steps.step("listen");
  const { totalMs, cpuMs, steps: startup } = steps.summary();
  app.log.info({ startupMs: startup, cpuMs }, `Ready in ${totalMs} ms (${cpuMs} ms CPU): ${describeSteps(startup)}`);
  app.log.info(
    `CallProof is running at ${config.publicUrl} (database: ${database.description}; mail: ${config.smtpUrl ? "SMTP" : `dev outbox in ${path.join(config.dataDir, "outbox")}`})`,
  );
}

main().catch((err) => {
  console.error(err instanceof StartError ? err.message : err);
  process.exit(1);
});
