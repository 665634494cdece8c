import type { Config } from "@server/config";
import type { Deps } from "@server/context";
import type { Database } from "@server/db/client";
import { AuditLog } from "@server/lib/audit";
import { background } from "@server/lib/background";
import { type Clock, systemClock } from "@server/lib/clock";
import { RateLimiter } from "@server/lib/rate-limit";
import { type Mailer, outboxMailer, smtpMailer } from "@server/mail/mailer";
import fp from "fastify-plugin";

declare module "fastify" {
  interface FastifyInstance {
    /** the services' dependencies: routes call `service(app.deps, request.actor, input)` */
    deps: Deps;
  }
}

export type DepsOptions = {
  config: Config;
  database: Database;
  mailer?: Mailer;
  clock?: Clock;
  /** the registry (buildApp passes features/index.ts's list) */
  features?: Deps["features"];
};

/** Builds the services' dependencies once (the caller owns the database); the mailer closes with the app. */
export default fp<DepsOptions>(
  async (app, { config, database, features = [], ...opts }) => {
    const clock = opts.clock ?? systemClock;
    const mailer =
      opts.mailer ??
      (config.smtpUrl
        ? smtpMailer(config.smtpUrl, config.mailFrom)
        : outboxMailer(config.dataDir, config.mailFrom, (line) => app.log.info(line)));
    const deps: Deps = {
      config,
      db: database.db,
      notifications: database.notifications,
      clock,
      mailer,
      audit: new AuditLog(database.db, () => clock.now()),
      limits: new RateLimiter(database.db),
      log: app.log,
      background: background(app.log),
      features: [...features],
    };
    app.decorate("deps", deps);
    app.addHook("preClose", async () => deps.background.stop());
    app.addHook("onClose", async () => mailer.close());
  },
  { name: "deps" },
);
