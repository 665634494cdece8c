import { signedIn } from "@server/context";
import { endSession, startSession } from "@server/features/users/session";
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
import * as auth from "./service";

export default async function authRoutes(app: App) {
  app.get("/auth/whoami", { schema: { response: { 200: roleAnswer } } }, async (request) => ({
    role: signedIn(request.actor).role,
  }));

  app.post("/auth/login", { schema: { body: loginBody, response: { 200: messageAnswer } } }, async (request) =>
    auth.passwordStep(app.deps, request.actor, request.body),
  );

  app.post(
    "/auth/verify-2fa",
    { schema: { body: verify2faBody, response: { 200: roleAnswer } } },
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
    { schema: { body: forgotPasswordBody, response: { 200: messageAnswer } } },
    async (request) => auth.forgotPassword(app.deps, request.actor, request.body),
  );

  app.post(
    "/auth/resend-verification",
    { schema: { body: resendVerificationBody, response: { 200: messageAnswer } } },
    async (request) => auth.resendVerificationEmail(app.deps, request.actor, request.body),
  );

  app.post(
    "/auth/reset-password",
    { schema: { body: resetPasswordBody, response: { 200: messageAnswer } } },
    async (request) => auth.resetPassword(app.deps, request.actor, request.body),
  );

  app.post(
    "/auth/verify-email",
    { schema: { body: verifyEmailBody, response: { 200: verifyEmailAnswer } } },
    async (request) => auth.verifyEmail(app.deps, request.actor, request.body),
  );

  app.get("/public-config", { schema: { response: { 200: publicConfigAnswer } } }, async () => ({
    supportEmail: app.deps.config.supportEmail,
  }));
}
