import type { Deps } from "@server/context";
import type { Executor } from "@server/db/client";
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

/** The person the person-level hooks are about (erasure, export). */
export type Person = { id: number; email: string; fullName: string; organisationId: number | null };

/**
 * What a feature is, for the registry (features/index.ts): its folder name (also the OpenAPI tag of its
 * routes, so /api/docs maps a URL to its folder), what it is for, its routes under /api, the plugins it
 * adds to the app, its jobs, and its sweep of expired rows (housekeeping calls each feature's). Each
 * feature's `index.ts` exports its own descriptor; the registry is the list of them.
 */
export type Feature = {
  name: string;
  purpose: string;
  routes?: (app: App) => Promise<void>;
  plugins?: FastifyPluginAsync[];
  jobs?: Job[];
  sweep?(deps: Deps, now: Date): Promise<unknown>;
  /** the database tables this feature owns: no other feature's code names them (a test checks it) */
  tables?: string[];
  /** after accounts were deactivated, on every path (admin, employer, SCIM, erasure): end what they hold */
  onDeactivated?(deps: Deps, userIds: number[]): Promise<unknown>;
  /** inside the erasure's transaction: delete or anonymise what this feature keeps about the person */
  erase?(tx: Executor, person: Person, now: Date): Promise<unknown>;
  /** the person's own data export: this feature's part (listed under the feature's name) */
  exportFor?(deps: Deps, person: Person): Promise<unknown>;
};
