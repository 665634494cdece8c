import type { Role, UserStatus } from "@shared/constants";
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import type { Config } from "./config";
import type { Db } from "./db/client";
import type { AuditLog } from "./lib/audit";
import type { Clock } from "./lib/clock";
import type { RateLimiter } from "./lib/rate-limit";
import type { Mailer } from "./mail/mailer";

export type SessionUser = {
  id: number;
  email: string;
  fullName: string;
  role: Role;
  status: UserStatus;
  organisationId: number | null;
};

declare module "fastify" {
  interface FastifyInstance {
    config: Config;
    db: Db;
    dbKind: "pglite" | "postgres";
    mailer: Mailer;
    clock: Clock;
    audit: AuditLog;
    limits: RateLimiter;
  }
  interface FastifyRequest {
    /** the signed-in, active user, or null */
    user: SessionUser | null;
    /** hash of the session token of this request, or null */
    sessionHash: string | null;
    /** the rate-limit key of the client address (IPv6 grouped by /64) */
    clientKey: string;
  }
}

/** The Fastify instance with Zod schemas as its type provider; every feature's routes take this. */
export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;
