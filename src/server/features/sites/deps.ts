import type { App } from "@server/types";
import { type Prover, siteProver } from "./prover";
import type { SitesDeps } from "./service";

const provers = new WeakMap<App, Prover>();

/** The sites feature's dependencies, taken from the app (one prover per app). */
export function sitesDeps(app: App): SitesDeps {
  let prover = provers.get(app);
  if (!prover) {
    prover = siteProver({
      dnsServers: app.config.siteDnsServers,
      testHttpPort: app.config.siteCheckTestHttpPort,
      timeoutMs: 5000,
    });
    provers.set(app, prover);
  }
  return {
    db: app.db,
    clock: app.clock,
    audit: app.audit,
    mailer: app.mailer,
    limits: app.limits,
    prover,
    publicUrl: app.config.publicUrl,
    log: app.log,
  };
}
