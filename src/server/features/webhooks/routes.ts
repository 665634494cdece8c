import { requireRole, requireRoleAudited } from "@server/plugins/guards";
import type { App } from "@server/types";
import { errorAnswer, messageAnswer } from "@shared/answers";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { webhookAnswer, webhookBody, webhookDeliveriesAnswer, webhookSavedAnswer } from "@shared/webhooks";
import * as webhooks from "./service";

/** The employer's webhook endpoint: superusers only (an admin has no organisation of their own). */
export default async function webhooksRoutes(app: App) {
  const superuser = requireRole("superuser");

  app.get(
    "/employer/webhook",
    {
      preValidation: superuser,
      schema: {
        operationId: "getWebhook",
        summary: "The organisation's webhook, if any",
        response: { 200: webhookAnswer },
      },
    },
    async (request) => webhooks.getWebhook(app.deps, request.actor),
  );

  app.put(
    "/employer/webhook",
    {
      preValidation: requireRoleAudited(AUDIT_ACTIONS.setWebhook, "superuser"),
      schema: {
        operationId: "saveWebhook",
        summary: "Set the webhook (answers its secret once)",
        body: webhookBody,
        response: { 200: webhookSavedAnswer },
      },
    },
    async (request) =>
      webhooks.setWebhook(app.deps, request.actor, { ...request.body, sessionHash: request.sessionHash }),
  );

  app.delete(
    "/employer/webhook",
    {
      preValidation: requireRoleAudited(AUDIT_ACTIONS.removeWebhook, "superuser"),
      schema: {
        operationId: "removeWebhook",
        summary: "Remove the webhook",
        response: { 404: errorAnswer, 200: messageAnswer },
      },
    },
    async (request) => webhooks.removeWebhook(app.deps, request.actor),
  );

  app.get(
    "/employer/webhook/deliveries",
    {
      preValidation: superuser,
      schema: {
        operationId: "listWebhookDeliveries",
        summary: "The webhook's last deliveries",
        response: { 200: webhookDeliveriesAnswer },
      },
    },
    async (request) => webhooks.deliveries(app.deps, request.actor),
  );

  app.post(
    "/employer/webhook/test",
    {
      preValidation: requireRoleAudited(AUDIT_ACTIONS.testWebhook, "superuser"),
      schema: {
        operationId: "testWebhook",
        summary: "Send a test event to the webhook",
        response: { 404: errorAnswer, 202: messageAnswer },
      },
    },
    async (request, reply) => reply.code(202).send(await webhooks.sendTestEvent(app.deps, request.actor)),
  );
}
