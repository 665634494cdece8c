import { startSession } from "@server/features/users/session";
import { anonymousLimit } from "@server/lib/anonymous-access";
import { randomToken } from "@server/lib/crypto";
import { requireRole, requireRoleAudited } from "@server/plugins/guards";
import type { App } from "@server/types";
import { errorAnswer, messageAnswer } from "@shared/answers";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { landingFor, paths } from "@shared/paths";
import {
  SSO,
  ssoAnswer,
  ssoBody,
  ssoCallbackQuery,
  ssoDiscoverAnswer,
  ssoEmailQuery,
  ssoOrganisationQuery,
  ssoStartAnswer,
  ssoStartBody,
} from "@shared/sso";
import { normaliseEmail } from "@shared/validation";
import type { FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { ssoErrors } from "./errors";
import { getConnection, removeConnection, saveConnection } from "./service";
import { callback, discover, failedRedirect, start } from "./signin";

/**
 * The cookie that binds an attempt to the browser that started it: HttpOnly, sent only to the SSO calls,
 * gone after 10 minutes. Its hash is stored with the state; the PKCE verifier and nonce derive from it.
 * SameSite=Lax: the provider's redirect back is a top-level navigation, which carries it.
 */
const BROWSER_COOKIE = "cp_sso";
const BROWSER_COOKIE_PATH = "/api/auth/sso";
const COOKIE_VALUE = /^[A-Za-z0-9_-]{43}$/;

function browserSecret(app: App, request: FastifyRequest, reply: FastifyReply): string {
  let value = request.cookies[BROWSER_COOKIE];
  if (!value || !COOKIE_VALUE.test(value)) value = randomToken(32);
  reply.setCookie(BROWSER_COOKIE, value, {
    path: BROWSER_COOKIE_PATH,
    httpOnly: true,
    sameSite: "lax",
    secure: app.deps.config.secureCookies,
    maxAge: SSO.stateLifetimeMs / 1000,
  });
  return value;
}

const redirectAnswer = z.null().describe("302 to the identity provider, or to /login?sso=failed&reason=…");

export default async function ssoRoutes(app: App) {
  app.get(
    "/employer/sso",
    {
      preValidation: requireRole("superuser", "admin"),
      schema: {
        operationId: "getSso",
        summary: "The organisation's single sign-on connection",
        querystring: ssoOrganisationQuery,
        response: { 404: errorAnswer, 200: ssoAnswer },
      },
    },
    async (request) => getConnection(app.deps, request.actor, request.query),
  );

  app.put(
    "/employer/sso",
    {
      preValidation: requireRoleAudited(AUDIT_ACTIONS.saveSso, "superuser"),
      schema: {
        operationId: "saveSso",
        summary: "Set the single sign-on connection",
        body: ssoBody,
        response: { 200: ssoAnswer.unwrap() },
      },
    },
    async (request) => saveConnection(app.deps, request.actor, { ...request.body, sessionHash: request.sessionHash }),
  );

  app.delete(
    "/employer/sso",
    {
      preValidation: requireRoleAudited(AUDIT_ACTIONS.removeSso, "superuser"),
      schema: {
        operationId: "removeSso",
        summary: "Remove the single sign-on connection",
        response: { 404: errorAnswer, 200: messageAnswer },
      },
    },
    async (request) => removeConnection(app.deps, request.actor, { sessionHash: request.sessionHash }),
  );

  app.get(
    "/auth/sso/discover",
    {
      config: { anonymous: anonymousLimit(SSO.discoverPerIp) },
      schema: {
        operationId: "discoverSso",
        summary: "Whether an e-mail's organisation signs in with SSO",
        querystring: ssoEmailQuery,
        response: { 200: ssoDiscoverAnswer },
      },
    },
    async (request) => discover(app.deps, request.actor, request.query),
  );

  /*
   * A start signs the browser in at the end of it, so only CallProof's own /login page may make one: a POST
   * with the CSRF token (checked with the Origin by the session plugin before this runs, as for every POST),
   * answering the URL the page then navigates to. A link or a form on another site is refused 403 before
   * any cookie or state is written, and the browser's session stays as it was (no login CSRF).
   */
  app.post(
    "/auth/sso/start",
    {
      config: { anonymous: anonymousLimit(SSO.startsPerIp) },
      schema: {
        operationId: "startSsoFromPage",
        summary: "Start single sign-on from /login (answers the identity provider's URL)",
        body: ssoStartBody,
        response: { 200: ssoStartAnswer, 404: errorAnswer },
      },
    },
    async (request, reply) => {
      const site = request.headers["sec-fetch-site"];
      if (site !== undefined && site !== "same-origin") throw ssoErrors.crossSiteStart();
      const secret = browserSecret(app, request, reply);
      const { redirect } = await start(app.deps, request.actor, { email: request.body.email, browserSecret: secret });
      return { url: redirect };
    },
  );

  /*
   * The contract's GET start: a navigation from CallProof's own page (the browser says so with
   * `Sec-Fetch-Site: same-origin`, which no other site can send) starts the flow with a 302 to the provider.
   * A link on another site, or a client that does not say where it came from, starts nothing: it gets
   * /login with the address filled in, where the person presses "Continue with single sign-on" themselves.
   */
  app.get(
    "/auth/sso/start",
    {
      config: { anonymous: anonymousLimit(SSO.startsPerIp) },
      schema: {
        operationId: "startSso",
        summary: "Start single sign-on from CallProof's own page (redirects to the identity provider)",
        querystring: ssoEmailQuery,
        response: { 404: errorAnswer, 302: redirectAnswer, 303: redirectAnswer },
      },
    },
    async (request, reply) => {
      const email = normaliseEmail(request.query.email);
      if (request.headers["sec-fetch-site"] === "same-origin" && email) {
        const secret = browserSecret(app, request, reply);
        const { redirect } = await start(app.deps, request.actor, { email, browserSecret: secret });
        return reply.redirect(redirect, 302);
      }
      return reply.redirect(email ? `${paths.login}?email=${encodeURIComponent(email)}` : paths.login, 303);
    },
  );

  app.get(
    "/auth/sso/callback",
    {
      // Past the limit too, the browser is sent back to /login?sso=failed (the contract's one answer).
      config: { anonymous: anonymousLimit({ ...SSO.callbacksPerIp, refusedWith: 302 }) },
      schema: {
        operationId: "ssoCallback",
        summary: "The identity provider's redirect back",
        querystring: ssoCallbackQuery,
        response: { 302: redirectAnswer },
      },
    },
    async (request, reply) => {
      const currentUrl = new URL(request.url, app.deps.config.publicUrl);
      const result = await callback(app.deps, request.actor, {
        currentUrl,
        browserSecret: request.cookies[BROWSER_COOKIE],
      });
      if (!result.ok) return reply.redirect(failedRedirect(result.reason), 302);
      await startSession(request, reply, result.userId, { viaSso: true });
      return reply.redirect(landingFor[result.role], 302);
    },
  );
}
