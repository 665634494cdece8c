import { unauthorized } from "@server/lib/errors";
import { requireUser } from "@server/plugins/guards";
import type { App } from "@server/types";
import { forgotPasswordBody, loginBody, resetPasswordBody, verify2faBody, verifyEmailBody } from "@shared/auth";
import { MESSAGES } from "@shared/messages";
import { codeStep, forgotPassword, passwordStep, resetPassword, signOut, verifyEmail } from "./service";

export default async function authRoutes(app: App) {
  app.get("/auth/whoami", async (request) => {
    if (!request.user) throw unauthorized(MESSAGES.notSignedIn);
    return { role: request.user.role };
  });

  app.post("/auth/login", { schema: { body: loginBody } }, async (request) =>
    passwordStep(app, request, request.body.email, request.body.password),
  );

  app.post("/auth/verify-2fa", { schema: { body: verify2faBody } }, async (request, reply) =>
    codeStep(app, request, reply, request.body.email, request.body.code),
  );

  app.post("/auth/logout", { preHandler: requireUser }, async (request, reply) => signOut(app, request, reply));

  app.post("/auth/forgot-password", { schema: { body: forgotPasswordBody } }, async (request) =>
    forgotPassword(app, request, request.body.email),
  );

  app.post("/auth/reset-password", { schema: { body: resetPasswordBody } }, async (request) =>
    resetPassword(app, request, request.body.token, request.body.newPassword),
  );

  app.post("/auth/verify-email", { schema: { body: verifyEmailBody } }, async (request) =>
    verifyEmail(app, request, request.body.email, request.body.token),
  );

  app.get("/public-config", async () => ({ supportEmail: app.config.supportEmail }));
}
