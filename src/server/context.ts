import type { Role, UserStatus } from "@shared/constants";
import { ERROR_CODES } from "@shared/error-codes";
import { MESSAGES } from "@shared/messages";
import type { Config } from "./config";
import type { Db, Notifications } from "./db/client";
import type { Feature } from "./features/feature";
import type { AuditLog } from "./lib/audit";
import type { Background } from "./lib/background";
import type { Clock } from "./lib/clock";
import { HttpError } from "./lib/errors";
import type { RateLimiter } from "./lib/rate-limit";
import type { Mailer } from "./mail/mailer";

/** The signed-in, active user of a request. */
export type SessionUser = {
  id: number;
  email: string;
  fullName: string;
  role: Role;
  status: UserStatus;
  organisationId: number | null;
};

/** What a service may write to the log (pino's shape: an object of fields, then a message). */
export type Log = {
  error(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
};

/**
 * Everything a service works with, built once at start. Services take it as their first argument;
 * HTTP routes pass `app.deps`, jobs and the command line build their own.
 */
export type Deps = {
  config: Config;
  db: Db;
  /** LISTEN/NOTIFY across the processes of one database */
  notifications: Notifications;
  clock: Clock;
  mailer: Mailer;
  audit: AuditLog;
  limits: RateLimiter;
  log: Log;
  /** background tasks and jobs: tests await `background.idle()`, shutdown stops them */
  background: Background;
  /** the registry's features (features/index.ts): deactivation, erasure and the export walk their hooks */
  features: readonly Feature[];
};

/**
 * Wake-ups on `channel` for every process, once the statement that caused them committed (decision 010: no
 * statement notifies itself). A background task, so tests' `background.idle()` awaits it and a stopping
 * server sends it before the database closes; a failure is logged (the listeners catch up on their own).
 */
export function publishAfterCommit(
  deps: Pick<Deps, "background" | "notifications">,
  channel: string,
  payloads: readonly string[],
) {
  if (payloads.length === 0) return;
  deps.background.run(`wake-up on ${channel}`, async () => {
    await Promise.all(payloads.map((payload) => deps.notifications.publish(channel, payload)));
  });
}

/** Who asks: the signed-in user (or nobody), the client address, its rate-limit key and the request id. */
export type Actor = {
  user: SessionUser | null;
  ip: string;
  /** the rate-limit key of the client address (IPv6 grouped by /64) */
  clientKey: string;
  requestId: string;
};

/** 401: nobody (or no live session) is signed in. */
export const notSignedIn = () => new HttpError(401, ERROR_CODES.notSignedIn, MESSAGES.notSignedIn);

/** The user of an actor that passed a sign-in guard. */
export function signedIn(actor: Actor): SessionUser {
  if (!actor.user) throw notSignedIn();
  return actor.user;
}

/** The audit fields an actor contributes: who (if anyone), for which organisation, from which address. */
export function auditActor(actor: Actor) {
  return {
    actorId: actor.user?.id ?? null,
    actorEmail: actor.user?.email ?? null,
    organisationId: actor.user?.organisationId ?? null,
    ip: actor.ip,
  };
}

/** A signed-in actor and the hash of the session token the request carried (401 without either). */
export function signedInSession(actor: Actor, sessionHash: string | null): { user: SessionUser; sessionHash: string } {
  const user = signedIn(actor);
  if (!sessionHash) throw notSignedIn();
  return { user, sessionHash };
}
