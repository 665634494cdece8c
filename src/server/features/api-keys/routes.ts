import { requireRole, requireRoleAudited } from "@server/plugins/guards";
import type { App } from "@server/types";
import { errorAnswer, messageAnswer } from "@shared/answers";
import { apiKeyBody, apiKeyCreatedAnswer, apiKeysAnswer } from "@shared/api-keys";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { idParams } from "@shared/paging";
import * as apiKeys from "./service";

/** The organisation's API keys: superusers only (an admin has no organisation of their own). */
export default async function apiKeysRoutes(app: App) {
  app.get(
    "/employer/api-keys",
    {
      preValidation: requireRole("superuser"),
      schema: { operationId: "listApiKeys", summary: "The organisation's API keys", response: { 200: apiKeysAnswer } },
    },
    async (request) => apiKeys.listKeys(app.deps, request.actor),
  );

  app.post(
    "/employer/api-keys",
    {
      preValidation: requireRoleAudited(AUDIT_ACTIONS.createApiKey, "superuser"),
      schema: {
        operationId: "createApiKey",
        summary: "Create an API key (answers the key once)",
        body: apiKeyBody,
        response: { 409: errorAnswer, 201: apiKeyCreatedAnswer },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .header("cache-control", "no-store")
        .send(await apiKeys.createKey(app.deps, request.actor, { sessionHash: request.sessionHash, ...request.body })),
  );

  app.delete(
    "/employer/api-keys/:id",
    {
      preValidation: requireRoleAudited(AUDIT_ACTIONS.revokeApiKey, "superuser"),
      schema: {
        operationId: "revokeApiKey",
        summary: "Revoke an API key",
        params: idParams,
        response: { 200: messageAnswer },
      },
    },
    async (request) => apiKeys.revokeKey(app.deps, request.actor, request.params),
  );
}
