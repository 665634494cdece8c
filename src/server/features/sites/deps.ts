import type { FastifyInstance } from "fastify";
import { type Prover, siteProver } from "./prover";
import type { SitesDeps } from "./service";

const provers = new WeakMap<FastifyInstance, Prover>();

/** The sites feature's dependencies: the app's, plus one prover per app. */
export function sitesDeps(app: FastifyInstance): SitesDeps {
  let prover = provers.get(app);
  if (!prover) {
    prover = siteProver({
      dnsServers: app.deps.config.siteDnsServers,
      outbound: app.deps.config.outbound,
      httpPort: app.deps.config.siteCheckTestHttpPort ?? 80,
      timeoutMs: 5000,
    });
    provers.set(app, prover);
  }
  return { ...app.deps, prover };
}
