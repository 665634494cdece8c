import type { ApiKeyScope } from "@shared/api-keys";
import { send } from "@web/lib/api";
import { useApi } from "@web/lib/use-api";

/** The api-keys feature's calls: the organisation's keys, a new one (shown once), revoking one. */
export const apiKeysApi = {
  list: (signal?: AbortSignal) => send("listApiKeys", { signal }),
  create: (name: string, scopes: ApiKeyScope[]) => send("createApiKey", { body: { name, scopes } }),
  revoke: (id: number) => send("revokeApiKey", { params: { path: { id: String(id) } } }),
};

export type ApiKeyItem = Awaited<ReturnType<typeof apiKeysApi.list>>[number];
export type ApiKeyCreated = Awaited<ReturnType<typeof apiKeysApi.create>>;

/** The organisation's API keys, reloaded after each change. */
export function useApiKeys() {
  return useApi(apiKeysApi.list, [], { what: "API keys" });
}
