import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { sitesDeps } from "./deps";
import { recheckSites } from "./service";

const EVERY_MS = 60 * 60_000;
const FIRST_AFTER_MS = 60_000;

/**
 * Re-checks proved sites in the background: a minute after start, then hourly, each run taking the
 * sites not looked up for a day. Runs in every process; each site is claimed by one of them.
 */
export default fp(async (app) => scheduleSiteRecheck(app), { name: "site-recheck", dependencies: ["deps"] });

function scheduleSiteRecheck(app: FastifyInstance) {
  let running = false;
  const run = async () => {
    if (running) return;
    running = true;
    try {
      const lost = await recheckSites(sitesDeps(app));
      if (lost.length > 0) app.log.info({ hosts: lost }, "sites lost their proof");
    } catch (err) {
      app.log.warn({ err }, "site re-check failed");
    } finally {
      running = false;
    }
  };
  const first = setTimeout(run, FIRST_AFTER_MS);
  const every = setInterval(run, EVERY_MS);
  first.unref();
  every.unref();
  app.addHook("onClose", async () => {
    clearTimeout(first);
    clearInterval(every);
  });
}
