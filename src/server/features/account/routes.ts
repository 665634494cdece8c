import { randomToken, sha256 } from "@server/lib/crypto";
import { requireUser } from "@server/plugins/guards";
import { startSession } from "@server/plugins/session";
import type { App } from "@server/types";
import {
  accountAnswer,
  addPasskeyBody,
  changePasswordBody,
  PASSKEY,
  passkeyAnswer,
  passkeyParams,
  passkeySignInBody,
  renamePasskeyBody,
} from "@shared/account";
import { messageAnswer } from "@shared/auth";
import { ROLES } from "@shared/constants";
import type { FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import {
  addPasskey,
  registrationOptions,
  removeUserPasskey,
  renameUserPasskey,
  signInOptions,
  signInWithPasskey,
} from "./passkeys";
import { type AccountDeps, type Actor, changePassword, getAccount, revokeOtherSessions } from "./service";

/**
 * The pre-session cookie that binds passkey sign-in challenges to the browser that asked for them:
 * HttpOnly, sent only to the passkey sign-in calls, gone after 5 minutes; only its hash is stored.
 */
const CHALLENGE_COOKIE = "cp_passkey";
const CHALLENGE_COOKIE_PATH = "/api/auth/passkey";

/** Options for the browser's WebAuthn call; the library builds them, only the challenge is named here. */
const ceremonyOptions = z.looseObject({ challenge: z.string() });

export default async function accountRoutes(app: App) {
  const deps = (request: FastifyRequest): AccountDeps => ({
    db: app.db,
    clock: app.clock,
    config: app.config,
    audit: app.audit,
    limits: app.limits,
    mailer: app.mailer,
    log: request.log,
  });
  const actor = (request: FastifyRequest): Actor => ({
    user: request.user,
    ip: request.ip,
    clientKey: request.clientKey,
    requestId: request.id,
  });
  const signedIn = { preHandler: requireUser };

  app.get("/account", { ...signedIn, schema: { response: { 200: accountAnswer } } }, async (request) =>
    getAccount(deps(request), actor(request), { sessionHash: request.sessionHash }),
  );

  app.post(
    "/account/change-password",
    { ...signedIn, schema: { body: changePasswordBody, response: { 200: messageAnswer } } },
    async (request) =>
      changePassword(deps(request), actor(request), { sessionHash: request.sessionHash, ...request.body }),
  );

  app.post(
    "/account/sessions/revoke-others",
    { ...signedIn, schema: { response: { 200: z.object({ count: z.number() }) } } },
    async (request) => revokeOtherSessions(deps(request), actor(request), { sessionHash: request.sessionHash }),
  );

  app.post(
    "/account/passkeys/options",
    { ...signedIn, schema: { response: { 200: ceremonyOptions } } },
    async (request) => ({
      ...(await registrationOptions(deps(request), actor(request), { sessionHash: request.sessionHash })),
    }),
  );

  app.post(
    "/account/passkeys",
    { ...signedIn, schema: { body: addPasskeyBody, response: { 201: passkeyAnswer } } },
    async (request, reply) => {
      const added = await addPasskey(deps(request), actor(request), {
        sessionHash: request.sessionHash,
        response: request.body.response,
        name: request.body.name,
        userAgent: request.headers["user-agent"],
      });
      return reply.code(201).send(added);
    },
  );

  app.patch(
    "/account/passkeys/:id",
    { ...signedIn, schema: { params: passkeyParams, body: renamePasskeyBody, response: { 200: messageAnswer } } },
    async (request) =>
      renameUserPasskey(deps(request), actor(request), { id: request.params.id, name: request.body.name }),
  );

  app.delete(
    "/account/passkeys/:id",
    { ...signedIn, schema: { params: passkeyParams, response: { 200: messageAnswer } } },
    async (request) => removeUserPasskey(deps(request), actor(request), { id: request.params.id }),
  );

  app.post("/auth/passkey/options", { schema: { response: { 200: ceremonyOptions } } }, async (request, reply) => {
    const binding = challengeCookie(app, request, reply);
    return { ...(await signInOptions(deps(request), actor(request), { binding })) };
  });

  app.post(
    "/auth/passkey/verify",
    { schema: { body: passkeySignInBody, response: { 200: z.object({ role: z.enum(ROLES) }) } } },
    async (request, reply) => {
      const cookie = request.cookies[CHALLENGE_COOKIE];
      const { userId, role } = await signInWithPasskey(deps(request), actor(request), {
        binding: cookie ? sha256(cookie) : null,
        response: request.body.response,
      });
      await startSession(app, request, reply, userId);
      reply.clearCookie(CHALLENGE_COOKIE, { path: CHALLENGE_COOKIE_PATH });
      return { role };
    },
  );
}

/** This browser's challenge cookie (set when missing); answers the hash its challenges are bound to. */
function challengeCookie(app: App, request: FastifyRequest, reply: FastifyReply): string {
  let value = request.cookies[CHALLENGE_COOKIE];
  if (!value || !/^[A-Za-z0-9_-]{43}$/.test(value)) value = randomToken(32);
  reply.setCookie(CHALLENGE_COOKIE, value, {
    path: CHALLENGE_COOKIE_PATH,
    httpOnly: true,
    sameSite: "strict",
    secure: app.config.secureCookies,
    maxAge: PASSKEY.challengeLifetimeMs / 1000,
  });
  return sha256(value);
}
