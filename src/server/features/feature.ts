import type { Deps } from "@server/context";
import type { App } from "@server/types";
import type { FastifyPluginAsync } from "fastify";

/** Background work a feature runs in every process, on the one runner (`deps.background`). */
export type Job = {
  name: string;
  everyMs: number;
  /** the first run after start (default: everyMs) */
  firstAfterMs?: number;
  run(app: App): Promise<unknown>;
};

/**
 * What a feature is, for the registry (features/index.ts): its folder name (also the OpenAPI tag of its
 * routes, so /api/docs maps a URL to its folder), what it is for, its routes under /api, the plugins it
 * adds to the app, its jobs, and its sweep of expired rows (housekeeping calls each feature's).
 */
export type Feature = {
  name: string;
  purpose: string;
  routes?: (app: App) => Promise<void>;
  plugins?: FastifyPluginAsync[];
  jobs?: Job[];
  sweep?(deps: Deps, now: Date): Promise<unknown>;
};
