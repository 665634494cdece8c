import path from "node:path";
import { buildApp } from "./app";
import type { Config } from "./config";
import { openDatabase } from "./db/client";
import type { PgliteThread } from "./db/pglite-thread";
import { ensureAdmin } from "./features/users/admin-accounts";
import { anyAdminExists } from "./features/users/repository";
import { resealPlainSecrets } from "./lib/sealed-secrets";
import { gracefulStop } from "./shutdown";
import { describeSteps, type StartupSteps } from "./startup-steps";

/** The server after its entry (main.ts): the database, the app, the admin check, listen. */
export async function serve({
  config,
  steps,
  embedded,
}: {
  config: Config;
  steps: StartupSteps;
  /** the embedded database's thread, already opening (none with DATABASE_URL) */
  embedded?: PgliteThread;
}) {
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    directUrl: config.databaseDirectUrl,
    dataDir: config.embeddedDir,
    embedded,
    onStep: steps.step,
  });
  // The embedded database may still be opening in its thread: the app is built meanwhile (a statement it
  // sends waits for the database), and the server listens only once the database is open and migrated.
  const building = buildApp({ config, database });
  let thread = "";
  if (embedded) {
    building.catch(() => {});
    const opened = await embedded.ready.catch(async (err) => {
      await database.close();
      throw err;
    });
    steps.step("database");
    thread = `; alongside, the database's thread: open ${Math.round(opened.openMs)}, migrations ${Math.round(opened.migrationsMs)}`;
  }
  const app = await building;
  // Values sealed plain (before secrets were bound, or by a previous release's process) are bound before listening.
  const sealed = await resealPlainSecrets(database.db, config.appSecret);
  if (sealed.resealed) app.log.info(`Re-sealed ${sealed.resealed} secrets bound to their organisation and purpose`);
  if (sealed.unreadable)
    app.log.warn(`${sealed.unreadable} sealed secrets do not open: another APP_SECRET, or copied from another row`);
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
  const stop = async (signal: string, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    if (exitCode === 0) app.log.info(`${signal} received: finishing in-flight requests, then closing the database`);
    try {
      await gracefulStop(app, database, { delayMs: signal === "SIGTERM" ? config.shutdownDelayMs : 0 });
      process.exit(exitCode);
    } catch (err) {
      app.log.error({ err }, "shutdown failed");
      process.exit(1);
    }
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
  // Without its database's thread this process can only answer 503: it stops (exit code 1), and whatever
  // supervises it (systemd, Docker's restart policy) starts it again on the same data directory.
  void embedded?.lost.then((err) => {
    app.log.fatal({ err }, "The embedded database's thread stopped: stopping the server; start it again");
    void stop("lost database", 1);
  });

  await app.listen({ port: config.port, host: config.host });
  steps.step("listen");
  const { totalMs, cpuMs, steps: startup } = steps.summary();
  app.log.info(
    { startupMs: startup, cpuMs },
    `Ready in ${totalMs} ms (${cpuMs} ms CPU): ${describeSteps(startup)}${thread}`,
  );
  app.log.info(
    `CallProof is running at ${config.publicUrl} (database: ${database.description}; mail: ${config.smtpUrl ? "SMTP" : `dev outbox in ${path.join(config.dataDir, "outbox")}`})`,
  );
}
