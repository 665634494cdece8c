import type { ApiKeyCreated, ApiKeyItem, ApiKeyScope } from "@shared/api-keys";
import { api } from "@web/lib/api";

/** The API keys panel's calls (GET/POST/DELETE /api/employer/api-keys). */
export const apiKeysApi = {
  list: () => api.get<ApiKeyItem[]>("/api/employer/api-keys"),
  create: (name: string, scopes: ApiKeyScope[]) => api.post<ApiKeyCreated>("/api/employer/api-keys", { name, scopes }),
  revoke: (id: number) => api.delete<{ message: string }>(`/api/employer/api-keys/${id}`),
};
