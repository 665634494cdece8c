import { signedIn } from "@server/context";
import { endSession, startSession } from "@server/features/users/session";
import { ANONYMOUS_READ_ONLY, anonymousLimit } from "@server/lib/anonymous-access";
import { requireUser } from "@server/plugins/guards";
import { callStatusScript } from "@server/plugins/static";
import type { App } from "@server/types";
import { errorAnswer, messageAnswer } from "@shared/answers";
import {
  forgotPasswordBody,
  loginBody,
  publicConfigAnswer,
  resendVerificationBody,
  resetPasswordBody,
  roleAnswer,
  verify2faBody,
  verifyEmailAnswer,
  verifyEmailBody,
} from "@shared/auth";
import { SIGN_IN } from "@shared/constants";
import * as auth from "./service";

/** Per client address, before any write (lib/anonymous-access.ts). */
const passwordAttempts = anonymousLimit({ limit: SIGN_IN.maxFailuresPerIp, windowMs: SIGN_IN.failureWindowMs });
const codeAttempts = anonymousLimit({ limit: SIGN_IN.maxWrongCodesPerIp, windowMs: SIGN_IN.wrongCodeIpWindowMs });

export default async function authRoutes(app: App) {
  app.get(
    "/auth/whoami",
    { schema: { operationId: "whoami", summary: "Who is signed in (their role)", response: { 200: roleAnswer } } },
    async (request) => ({
      role: signedIn(request.actor).role,
    }),
  );

  app.post(
    "/auth/login",
    {
      config: { anonymous: passwordAttempts },
      schema: {
        operationId: "login",
        summary: "Sign in, step 1: the password (a code is e-mailed)",
        body: loginBody,
        response: { 401: errorAnswer, 200: messageAnswer },
      },
    },
    async (request) => auth.passwordStep(app.deps, request.actor, request.body),
  );

  app.post(
    "/auth/verify-2fa",
    {
      config: { anonymous: codeAttempts },
      schema: {
        operationId: "verifySignInCode",
        summary: "Sign in, step 2: the e-mailed code (starts the session)",
        body: verify2faBody,
        response: { 401: errorAnswer, 200: roleAnswer },
      },
    },
    async (request, reply) => {
      const { userId, role } = await auth.codeStep(app.deps, request.actor, request.body);
      await startSession(request, reply, userId);
      return { role };
    },
  );

  app.post(
    "/auth/logout",
    {
      preHandler: requireUser,
      schema: { operationId: "logout", summary: "Sign out", response: { 200: messageAnswer } },
    },
    async (request, reply) => {
      const actor = request.actor;
      await endSession(request, reply);
      return auth.signOut(app.deps, actor);
    },
  );

  app.post(
    "/auth/forgot-password",
    {
      config: { anonymous: anonymousLimit(auth.FORGOT_PER_IP) },
      schema: {
        operationId: "forgotPassword",
        summary: "E-mail a password reset link",
        body: forgotPasswordBody,
        response: { 200: messageAnswer },
      },
    },
    async (request) => auth.forgotPassword(app.deps, request.actor, request.body),
  );

  app.post(
    "/auth/resend-verification",
    {
      config: { anonymous: anonymousLimit(auth.FORGOT_PER_IP) },
      schema: {
        operationId: "resendVerificationEmail",
        summary: "E-mail the address verification link again",
        body: resendVerificationBody,
        response: { 200: messageAnswer },
      },
    },
    async (request) => auth.resendVerificationEmail(app.deps, request.actor, request.body),
  );

  app.post(
    "/auth/reset-password",
    {
      config: { anonymous: anonymousLimit(auth.RESET_PER_IP) },
      schema: {
        operationId: "resetPassword",
        summary: "Set a new password with a reset link's token",
        body: resetPasswordBody,
        response: { 200: messageAnswer },
      },
    },
    async (request) => auth.resetPassword(app.deps, request.actor, request.body),
  );

  app.post(
    "/auth/verify-email",
    {
      config: { anonymous: anonymousLimit(auth.VERIFY_EMAIL_PER_IP) },
      schema: {
        operationId: "verifyEmail",
        summary: "Verify an e-mail address with its link's token",
        body: verifyEmailBody,
        response: { 200: verifyEmailAnswer },
      },
    },
    async (request) => auth.verifyEmail(app.deps, request.actor, request.body),
  );

  app.get(
    "/public-config",
    {
      config: { anonymous: ANONYMOUS_READ_ONLY },
      schema: {
        operationId: "getPublicConfig",
        summary: "The web app's public settings",
        response: { 200: publicConfigAnswer },
      },
    },
    async () => {
      const script = callStatusScript();
      return {
        supportEmail: app.deps.config.supportEmail,
        callStatusScript: script && { src: app.deps.config.publicUrl + script.path, integrity: script.integrity },
      };
    },
  );
}
