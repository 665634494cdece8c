import cluster from "node:cluster";
import { ConfigError, loadConfig } from "./config";
import { StartError } from "./db/embedded-lock";
import { type PgliteThread, startEmbedded } from "./db/pglite-thread";
import { startupSteps } from "./startup-steps";

/**
 * The server's entry: reads the configuration, starts opening the embedded database in its own thread,
 * and only then loads the rest of the server (serve.ts, a chunk of its own in the build), so that
 * loading the modules and opening the database overlap (bench/README.md, "Start-up").
 */
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
    const { runPrimary } = await import("./cluster");
    runPrimary(config.webConcurrency, (line) => console.log(line));
    return;
  }

  const embedded: PgliteThread | undefined = config.databaseUrl ? undefined : startEmbedded(config.embeddedDir);
  const { serve } = await import("./serve");
  steps.step("server modules");
  await serve({ config, steps, embedded });
}

main().catch((err) => {
  console.error(err instanceof StartError ? err.message : err);
  process.exit(1);
});
