import { signedIn } from "@server/context";
import { endSession, startSession } from "@server/features/users/session";
import { ANONYMOUS_READ_ONLY, anonymousLimit } from "@server/lib/anonymous-access";
import { requireUser } from "@server/plugins/guards";
import type { App } from "@server/types";
import { messageAnswer } from "@shared/answers";
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
  app.get("/auth/whoami", { schema: { response: { 200: roleAnswer } } }, async (request) => ({
    role: signedIn(request.actor).role,
  }));

  app.post(
    "/auth/login",
    { config: { anonymous: passwordAttempts }, schema: { body: loginBody, response: { 200: messageAnswer } } },
    async (request) => auth.passwordStep(app.deps, request.actor, request.body),
  );

  app.post(
    "/auth/verify-2fa",
    { config: { anonymous: codeAttempts }, schema: { body: verify2faBody, response: { 200: roleAnswer } } },
    async (request, reply) => {
      const { userId, role } = await auth.codeStep(app.deps, request.actor, request.body);
      await startSession(request, reply, userId);
      return { role };
    },
  );

  app.post(
    "/auth/logout",
    { preHandler: requireUser, schema: { response: { 200: messageAnswer } } },
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
      schema: { body: forgotPasswordBody, response: { 200: messageAnswer } },
    },
    async (request) => auth.forgotPassword(app.deps, request.actor, request.body),
  );

  app.post(
    "/auth/resend-verification",
    {
      config: { anonymous: anonymousLimit(auth.FORGOT_PER_IP) },
      schema: { body: resendVerificationBody, response: { 200: messageAnswer } },
    },
    async (request) => auth.resendVerificationEmail(app.deps, request.actor, request.body),
  );

  app.post(
    "/auth/reset-password",
    {
      config: { anonymous: anonymousLimit(auth.RESET_PER_IP) },
      schema: { body: resetPasswordBody, response: { 200: messageAnswer } },
    },
    async (request) => auth.resetPassword(app.deps, request.actor, request.body),
  );

  app.post(
    "/auth/verify-email",
    {
      config: { anonymous: anonymousLimit(auth.VERIFY_EMAIL_PER_IP) },
      schema: { body: verifyEmailBody, response: { 200: verifyEmailAnswer } },
    },
    async (request) => auth.verifyEmail(app.deps, request.actor, request.body),
  );

  app.get(
    "/public-config",
    { config: { anonymous: ANONYMOUS_READ_ONLY }, schema: { response: { 200: publicConfigAnswer } } },
    async () => ({
      supportEmail: app.deps.config.supportEmail,
    }),
  );
}
