import { startSession } from "@server/features/users/session";
import { anonymousLimit } from "@server/lib/anonymous-access";
import { randomToken, sha256 } from "@server/lib/crypto";
import { requireUser } from "@server/plugins/guards";
import type { App } from "@server/types";
import {
  accountAnswer,
  accountExportAnswer,
  addPasskeyBody,
  changePasswordBody,
  PASSKEY,
  passkeyAnswer,
  passkeyParams,
  passkeySignInBody,
  renamePasskeyBody,
} from "@shared/account";
import { errorAnswer, messageAnswer } from "@shared/answers";
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
import { changePassword, exportAccount, getAccount, revokeOtherSessions } from "./service";

/**
 * The pre-session cookie that binds passkey sign-in challenges to the browser that asked for them:
 * HttpOnly, sent only to the passkey sign-in calls, gone after 5 minutes; only its hash is stored.
 */
const CHALLENGE_COOKIE = "cp_passkey";
const CHALLENGE_COOKIE_PATH = "/api/auth/passkey";

/** Options for the browser's WebAuthn call; the library builds them, only the challenge is named here. */
const ceremonyOptions = z.looseObject({ challenge: z.string() });

export default async function accountRoutes(app: App) {
  // Before validation: a caller without a session gets 401 whatever its body (never a 400 telling the shape).
  const signedIn = { preValidation: requireUser };

  app.get(
    "/account/export",
    {
      ...signedIn,
      schema: {
        operationId: "exportAccount",
        summary: "Download everything kept about the signed-in person",
        response: { 200: accountExportAnswer },
      },
    },
    async (request, reply) => {
      const data = await exportAccount(app.deps, request.actor);
      return reply
        .header("content-disposition", `attachment; filename="callproof-account-${data.profile.id}.json"`)
        .header("cache-control", "no-store")
        .send(data);
    },
  );

  app.get(
    "/account",
    {
      ...signedIn,
      schema: {
        operationId: "getAccount",
        summary: "The signed-in person's profile, passkeys and sessions",
        response: { 200: accountAnswer },
      },
    },
    async (request) => getAccount(app.deps, request.actor, { sessionHash: request.sessionHash }),
  );

  app.post(
    "/account/change-password",
    {
      ...signedIn,
      schema: {
        operationId: "changePassword",
        summary: "Change the password (ends the other sessions)",
        body: changePasswordBody,
        response: { 200: messageAnswer },
      },
    },
    async (request) => changePassword(app.deps, request.actor, { sessionHash: request.sessionHash, ...request.body }),
  );

  app.post(
    "/account/sessions/revoke-others",
    {
      ...signedIn,
      schema: {
        operationId: "revokeOtherSessions",
        summary: "Sign out every other session",
        response: { 200: z.object({ count: z.number() }) },
      },
    },
    async (request) => revokeOtherSessions(app.deps, request.actor, { sessionHash: request.sessionHash }),
  );

  app.post(
    "/account/passkeys/options",
    {
      ...signedIn,
      schema: {
        operationId: "passkeyRegistrationOptions",
        summary: "Start adding a passkey (WebAuthn options)",
        response: { 200: ceremonyOptions },
      },
    },
    async (request) => ({
      ...(await registrationOptions(app.deps, request.actor, { sessionHash: request.sessionHash })),
    }),
  );

  app.post(
    "/account/passkeys",
    {
      ...signedIn,
      schema: {
        operationId: "addPasskey",
        summary: "Add a passkey",
        body: addPasskeyBody,
        response: { 409: errorAnswer, 201: passkeyAnswer },
      },
    },
    async (request, reply) => {
      const added = await addPasskey(app.deps, request.actor, {
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
    {
      ...signedIn,
      schema: {
        operationId: "renamePasskey",
        summary: "Rename a passkey",
        params: passkeyParams,
        body: renamePasskeyBody,
        response: { 200: messageAnswer },
      },
    },
    async (request) => renameUserPasskey(app.deps, request.actor, { id: request.params.id, name: request.body.name }),
  );

  app.delete(
    "/account/passkeys/:id",
    {
      ...signedIn,
      schema: {
        operationId: "removePasskey",
        summary: "Remove a passkey",
        params: passkeyParams,
        response: { 200: messageAnswer },
      },
    },
    async (request) => removeUserPasskey(app.deps, request.actor, { id: request.params.id }),
  );

  app.post(
    "/auth/passkey/options",
    {
      config: {
        anonymous: anonymousLimit({ limit: PASSKEY.signInOptionsPerWindow, windowMs: PASSKEY.signInOptionsWindowMs }),
      },
      schema: {
        operationId: "passkeySignInOptions",
        summary: "Start signing in with a passkey (WebAuthn options)",
        response: { 200: ceremonyOptions },
      },
    },
    async (request, reply) => {
      const binding = challengeCookie(app, request, reply);
      return { ...(await signInOptions(app.deps, request.actor, { binding })) };
    },
  );

  app.post(
    "/auth/passkey/verify",
    {
      config: {
        anonymous: anonymousLimit({ limit: PASSKEY.signInTriesPerWindow, windowMs: PASSKEY.signInOptionsWindowMs }),
      },
      schema: {
        operationId: "signInWithPasskey",
        summary: "Sign in with a passkey",
        body: passkeySignInBody,
        response: { 401: errorAnswer, 200: z.object({ role: z.enum(ROLES) }) },
      },
    },
    async (request, reply) => {
      const cookie = request.cookies[CHALLENGE_COOKIE];
      const { userId, role } = await signInWithPasskey(app.deps, request.actor, {
        binding: cookie ? sha256(cookie) : null,
        response: request.body.response,
      });
      await startSession(request, reply, userId);
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
    secure: app.deps.config.secureCookies,
    maxAge: PASSKEY.challengeLifetimeMs / 1000,
  });
  return sha256(value);
}
