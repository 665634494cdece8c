import { cleanUserAgent } from "@shared/account";
import { SESSION } from "@shared/constants";
import { MESSAGES } from "@shared/messages";
import { and, eq, gt } from "drizzle-orm";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { sessions, users } from "../db/schema";
import { hmac, randomToken, safeEqual, sha256 } from "../lib/crypto";
import { forbidden } from "../lib/errors";
import { ipKey } from "../lib/ip";

export const SESSION_COOKIE = "cp_session";
export const CSRF_COOKIE = "XSRF-TOKEN";
export const CSRF_HEADER = "x-xsrf-token";

const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** A CSRF token is `nonce.mac`, the mac binding it to the session (or to "no session"). */
function csrfToken(secret: string, sessionHash: string | null, nonce = randomToken(16)) {
  return `${nonce}.${hmac(secret, "csrf", `${nonce}:${sessionHash ?? "anon"}`)}`;
}

function csrfTokenValid(secret: string, sessionHash: string | null, token: string | undefined): boolean {
  if (!token) return false;
  const [nonce, mac] = token.split(".");
  if (!nonce || !mac) return false;
  return safeEqual(token, csrfToken(secret, sessionHash, nonce));
}

declare module "fastify" {
  interface FastifyContextConfig {
    /**
     * The widget's cross-origin call (POST /api/verify): cookies are neither read nor set,
     * so no session, no CSRF token and no Origin check apply.
     */
    widget?: boolean;
  }
  interface FastifyRequest {
    csrfCookieValid: boolean;
  }
  interface FastifyReply {
    csrfIssued: boolean;
  }
}

/** Sessions (hashed opaque tokens, idle and absolute expiry) and signed double-submit CSRF with an Origin check. */
export function registerSessions(app: FastifyInstance) {
  const { config, clock, db } = app;
  app.decorateRequest("user", null);
  app.decorateRequest("sessionHash", null);
  app.decorateRequest("clientKey", "");
  app.decorateRequest("csrfCookieValid", false);
  app.decorateReply("csrfIssued", false);

  app.addHook("onRequest", async (request, reply) => {
    request.clientKey = ipKey(request.ip);
    if (!request.url.startsWith("/api/") || request.routeOptions.config?.widget) return;
    const token = request.cookies[SESSION_COOKIE];
    if (token) {
      const now = clock.now();
      const hash = sha256(token);
      const [row] = await db
        .select({
          id: users.id,
          email: users.email,
          fullName: users.fullName,
          role: users.role,
          status: users.status,
          organisationId: users.organisationId,
          lastSeenAt: sessions.lastSeenAt,
        })
        .from(sessions)
        .innerJoin(users, eq(users.id, sessions.userId))
        .where(
          and(
            eq(sessions.tokenHash, hash),
            gt(sessions.expiresAt, now),
            gt(sessions.lastSeenAt, new Date(now.getTime() - SESSION.idleMs)),
            eq(users.status, "active"),
          ),
        );
      if (row) {
        const { lastSeenAt, ...user } = row;
        request.user = user;
        request.sessionHash = hash;
        if (now.getTime() - lastSeenAt.getTime() >= SESSION.touchEveryMs) {
          await db.update(sessions).set({ lastSeenAt: now }).where(eq(sessions.tokenHash, hash));
        }
      } else {
        clearSessionCookie(app, reply);
      }
    }
    request.csrfCookieValid = csrfTokenValid(config.appSecret, request.sessionHash, request.cookies[CSRF_COOKIE]);

    if (UNSAFE.has(request.method)) {
      const origin = request.headers.origin;
      if (origin !== undefined && origin !== config.publicOrigin) throw forbidden(MESSAGES.foreignOrigin);
      const header = request.headers[CSRF_HEADER];
      const cookie = request.cookies[CSRF_COOKIE];
      if (typeof header !== "string" || !cookie || !safeEqual(header, cookie) || !request.csrfCookieValid) {
        throw forbidden(MESSAGES.csrfFailed);
      }
    }
  });

  app.addHook("onSend", async (request, reply) => {
    if (!request.url.startsWith("/api/") || request.routeOptions.config?.widget) return;
    if (!request.csrfCookieValid && !reply.csrfIssued) issueCsrfCookie(app, reply, request.sessionHash);
  });
}

export function issueCsrfCookie(app: FastifyInstance, reply: FastifyReply, sessionHash: string | null) {
  reply.csrfIssued = true;
  reply.setCookie(CSRF_COOKIE, csrfToken(app.config.appSecret, sessionHash), {
    path: "/",
    sameSite: "lax",
    secure: app.config.secureCookies,
    httpOnly: false,
  });
}

/** Starts a new session for the user: a fresh token, its hash stored, the cookie set, CSRF re-bound. */
export async function startSession(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, userId: number) {
  const now = app.clock.now();
  const token = randomToken(32);
  const hash = sha256(token);
  // A previous session on this browser ends: no session fixation.
  if (request.sessionHash) await app.db.delete(sessions).where(eq(sessions.tokenHash, request.sessionHash));
  await app.db.insert(sessions).values({
    tokenHash: hash,
    userId,
    createdAt: now,
    lastSeenAt: now,
    expiresAt: new Date(now.getTime() + SESSION.absoluteMs),
    userAgent: cleanUserAgent(request.headers["user-agent"]),
    ip: request.ip,
  });
  reply.setCookie(SESSION_COOKIE, token, {
    path: "/",
    httpOnly: true,
    sameSite: "lax",
    secure: app.config.secureCookies,
    maxAge: SESSION.absoluteMs / 1000,
  });
  request.sessionHash = hash;
  issueCsrfCookie(app, reply, hash);
}

/** Ends this request's session, if any. */
export async function endSession(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
  if (request.sessionHash) await app.db.delete(sessions).where(eq(sessions.tokenHash, request.sessionHash));
  request.sessionHash = null;
  request.user = null;
  clearSessionCookie(app, reply);
  issueCsrfCookie(app, reply, null);
}

/** Ends every session of a user (password reset, deactivation). */
export async function endAllSessions(app: FastifyInstance, userId: number) {
  await app.db.delete(sessions).where(eq(sessions.userId, userId));
}

function clearSessionCookie(app: FastifyInstance, reply: FastifyReply) {
  reply.clearCookie(SESSION_COOKIE, { path: "/", httpOnly: true, sameSite: "lax", secure: app.config.secureCookies });
}
