import type { RouteOptions } from "fastify";
import fp from "fastify-plugin";

/** One route as it was registered: what the anonymous-routes test walks. */
export type RegisteredRoute = { method: string; url: string; config: RouteOptions["config"] };

declare module "fastify" {
  interface FastifyInstance {
    /** every route registered after this plugin (register it before the routes), in order */
    registeredRoutes: RegisteredRoute[];
  }
}

/**
 * Records every route the server registers, with its config, so a test can walk all of them (and find a
 * new anonymous route that declares no limit). Registered right after `deps`, before any route.
 */
export default fp(
  async (app) => {
    const routes: RegisteredRoute[] = [];
    app.decorate("registeredRoutes", routes);
    app.addHook("onRoute", (route) => {
      for (const method of [route.method].flat()) routes.push({ method, url: route.url, config: route.config });
    });
  },
  { name: "route-table" },
);
