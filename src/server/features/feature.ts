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
  /** resolves `true` when work is left (a backlog worked through in turns): the job runs again at once */
  run(app: App): Promise<unknown>;
};

/** The person the person-level hooks are about (erasure, export). */
export type Person = { id: number; email: string; fullName: string; organisationId: number | null };

/**
 * One erasure, shared by the features' `erase` hooks in its transaction: what an earlier hook learnt that a
 * later one needs. SCIM adds the e-mail it had released for the account (it may name the person in the
 * audit log), and the audit log, erased last, erases that too.
 */
export type Erasure = {
  /** other e-mail addresses this person had, that no other account has now */
  formerEmails: string[];
};

/**
 * What a feature is, for the registry (features/index.ts): its folder name (also the OpenAPI tag of its
 * routes, so /api/docs maps a URL to its folder), what it is for, its routes under /api, the plugins it
 * adds to the app, its jobs, its sweep of expired rows with its own retention (housekeeping calls each
 * feature's), the tables it owns, and what happens to what it keeps about a person over that person's life
 * (deactivation, e-mail change, erasure, export). Each feature's `index.ts` exports its own descriptor as
 * `<name>Feature`; the registry is the list of them, and `deps.features` is that list for the services
 * that walk it (docs/decisions/009-feature-descriptors.md).
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
  /**
   * Owned tables with a person's id that erasure leaves as they are, each with why (their rows keep only the
   * id: no name, e-mail or address). Every other owned table with a person's id or e-mail is the `erase`
   * hook's (a test checks that every such table is one or the other).
   */
  erasureKeeps?: Record<string, string>;
  /** after accounts were deactivated, on every path (admin, employer, SCIM, erasure): end what they hold */
  onDeactivated?(deps: Deps, userIds: number[]): Promise<unknown>;
  /** inside the transaction that changed an account's e-mail: what was sent to the old address stops working */
  onEmailChanged?(tx: Executor, userId: number): Promise<unknown>;
  /**
   * Inside the erasure's transaction: delete or anonymise what this feature keeps about the person. The
   * audit log's runs last and answers the ids of the events it changed (the erasure's seal names them).
   */
  erase?(tx: Executor, person: Person, now: Date, erasure: Erasure): Promise<unknown>;
  /**
   * The person's own data export: this feature's part. An object's keys become the export's keys (`profile`,
   * `sessions`, `codes`…); any other answer is listed under the feature's name.
   */
  exportFor?(deps: Deps, person: Person): Promise<unknown>;
};
