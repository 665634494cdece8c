import type { Actor, SessionUser } from "@server/context";
import { hmac, randomToken, safeEqual, sha256 } from "@server/lib/crypto";
import { HttpError } from "@server/lib/errors";
import { ipKey } from "@server/lib/ip";
import { isApiRequest } from "@server/lib/request-path";
import { cleanUserAgent } from "@shared/account";
import { SESSION, SIGNED_IN_HINT } from "@shared/constants";
import { ERROR_CODES } from "@shared/error-codes";
import { MESSAGES } from "@shared/messages";
import type { FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import * as repo from "./repository";

/**
 * The session cookie's name. Over https it carries the `__Host-` prefix: the browser then accepts it only
 * with Secure, path / and no Domain, so no subdomain or plain-http page can plant or overwrite it.
 */
export const sessionCookieName = (secure: boolean) => (secure ? "__Host-cp_session" : "cp_session");
export const CSRF_COOKIE = "XSRF-TOKEN";
export const CSRF_HEADER = "x-xsrf-token";

const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"]);

declare module "fastify" {
  interface FastifyContextConfig {
    /**
     * The widget's cross-origin call (POST /api/verify): cookies are neither read nor set,
     * so no session, no CSRF token and no Origin check apply.
     */
    widget?: boolean;
    /**
     * A call authenticated by its own bearer token (/api/v1 with an API key, SCIM under /api/scim/v2):
     * only `Authorization: Bearer` counts, so cookies are neither read nor set, and no CSRF token or Origin
     * check applies (a browser cannot send the token by itself).
     */
    bearer?: boolean;
    /**
     * A call-status component route (/api/call-status…): authenticated only by its status token in
     * `Authorization: Bearer cps_…` and bound to the token's Origin, so cookies are neither read nor set
     * and no CSRF token or Origin-is-CallProof check applies.
     */
    statusToken?: boolean;
  }
  interface FastifyRequest {
    /** the signed-in, active user, or null */
    user: SessionUser | null;
    /** hash of the session token of this request, or null */
    sessionHash: string | null;
    /** the rate-limit key of the client address (IPv6 grouped by /64) */
    clientKey: string;
    /** who asks, as services take it */
    readonly actor: Actor;
    csrfCookieValid: boolean;
  }
  interface FastifyReply {
    csrfIssued: boolean;
  }
}

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

/** Sessions (hashed opaque tokens, idle and absolute expiry) and signed double-submit CSRF with an Origin check. */
export default fp(
  async (app) => {
    const { config, clock, db } = app.deps;
    app.decorateRequest("user", null);
    app.decorateRequest("sessionHash", null);
    app.decorateRequest("clientKey", "");
    app.decorateRequest("csrfCookieValid", false);
    app.decorateRequest("actor", {
      getter(this: FastifyRequest): Actor {
        return { user: this.user, ip: this.ip, clientKey: this.clientKey, requestId: String(this.id) };
      },
    });
    app.decorateReply("csrfIssued", false);

    /**
     * Sessions and CSRF are for the routes that use them: not the widget's, not those that take a bearer
     * token (SCIM, /api/v1), and not a path no route matches, whose 404 changes nothing (a SCIM client's
     * POST to /Groups gets SCIM's 404, not a CSRF refusal it cannot understand).
     */
    const sessionless = (request: FastifyRequest) =>
      !isApiRequest(request) ||
      !request.routeOptions.url ||
      Boolean(
        request.routeOptions.config?.widget ||
          request.routeOptions.config?.bearer ||
          request.routeOptions.config?.statusToken,
      );

    app.addHook("onRequest", async (request, reply) => {
      request.clientKey = ipKey(request.ip);
      if (sessionless(request)) return;
      const token = request.cookies[sessionCookieName(config.secureCookies)];
      // The session cookie is gone (expired in the browser) but the hint stayed: clear the hint.
      if (!token && request.cookies[SIGNED_IN_HINT]) clearSessionCookie(request, reply);
      if (token) {
        const now = clock.now();
        const hash = sha256(token);
        const row = await repo.findSessionUser(db, hash, now, new Date(now.getTime() - SESSION.idleMs));
        if (row) {
          const { lastSeenAt, ...user } = row;
          request.user = user;
          request.sessionHash = hash;
          // A session from before the hint existed gets it on its next call.
          if (!request.cookies[SIGNED_IN_HINT]) setSignedInHint(reply, config.secureCookies);
          if (now.getTime() - lastSeenAt.getTime() >= SESSION.touchEveryMs) await repo.touchSession(db, hash, now);
        } else {
          clearSessionCookie(request, reply);
        }
      }
      request.csrfCookieValid = csrfTokenValid(config.appSecret, request.sessionHash, request.cookies[CSRF_COOKIE]);

      if (UNSAFE.has(request.method)) {
        const origin = request.headers.origin;
        if (origin !== undefined && origin !== config.publicOrigin) {
          throw new HttpError(403, ERROR_CODES.foreignOrigin, MESSAGES.foreignOrigin);
        }
        const header = request.headers[CSRF_HEADER];
        const cookie = request.cookies[CSRF_COOKIE];
        if (typeof header !== "string" || !cookie || !safeEqual(header, cookie) || !request.csrfCookieValid) {
          throw new HttpError(403, ERROR_CODES.csrfFailed, MESSAGES.csrfFailed);
        }
      }
    });

    app.addHook("onSend", async (request, reply) => {
      if (sessionless(request)) return;
      if (!request.csrfCookieValid && !reply.csrfIssued) issueCsrfCookie(request, reply, request.sessionHash);
    });
  },
  { name: "session", dependencies: ["deps", "@fastify/cookie"] },
);

function issueCsrfCookie(request: FastifyRequest, reply: FastifyReply, sessionHash: string | null) {
  const { config } = request.server.deps;
  reply.csrfIssued = true;
  reply.setCookie(CSRF_COOKIE, csrfToken(config.appSecret, sessionHash), {
    path: "/",
    sameSite: "lax",
    secure: config.secureCookies,
    httpOnly: false,
  });
}

/**
 * Starts a new session for the user: a fresh token, its hash stored, the cookie set, CSRF re-bound.
 * `viaSso` marks a session single sign-on started (enforcing SSO ends the others).
 */
export async function startSession(
  request: FastifyRequest,
  reply: FastifyReply,
  userId: number,
  opts: { viaSso?: boolean } = {},
) {
  const { config, clock, db } = request.server.deps;
  const now = clock.now();
  const token = randomToken(32);
  const hash = sha256(token);
  // A previous session on this browser ends: no session fixation.
  if (request.sessionHash) await repo.deleteSession(db, request.sessionHash);
  await repo.insertSession(db, {
    tokenHash: hash,
    userId,
    now,
    expiresAt: new Date(now.getTime() + SESSION.absoluteMs),
    userAgent: cleanUserAgent(request.headers["user-agent"]),
    ip: request.ip,
    viaSso: opts.viaSso ?? false,
  });
  reply.setCookie(sessionCookieName(config.secureCookies), token, {
    path: "/",
    httpOnly: true,
    sameSite: "lax",
    secure: config.secureCookies,
    maxAge: SESSION.absoluteMs / 1000,
  });
  setSignedInHint(reply, config.secureCookies);
  request.sessionHash = hash;
  issueCsrfCookie(request, reply, hash);
}

/** Ends this request's session, if any. */
export async function endSession(request: FastifyRequest, reply: FastifyReply) {
  if (request.sessionHash) await repo.deleteSession(request.server.deps.db, request.sessionHash);
  request.sessionHash = null;
  request.user = null;
  clearSessionCookie(request, reply);
  issueCsrfCookie(request, reply, null);
}

/**
 * A hint for the web app, readable by scripts: no credential (the session cookie is), it only spares a
 * signed-out visitor's pages the whoami call that would answer 401. Set and cleared with the session.
 */
function setSignedInHint(reply: FastifyReply, secure: boolean) {
  reply.setCookie(SIGNED_IN_HINT, "1", {
    path: "/",
    httpOnly: false,
    sameSite: "lax",
    secure,
    maxAge: SESSION.absoluteMs / 1000,
  });
}

function clearSessionCookie(request: FastifyRequest, reply: FastifyReply) {
  const secure = request.server.deps.config.secureCookies;
  reply.clearCookie(sessionCookieName(secure), { path: "/", httpOnly: true, sameSite: "lax", secure });
  reply.clearCookie(SIGNED_IN_HINT, { path: "/", httpOnly: false, sameSite: "lax", secure });
}
