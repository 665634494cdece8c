import { send } from "@web/lib/api";
import { useApi } from "@web/lib/use-api";

/** The scim feature's calls on the employer dashboard: the base URL and token status, a new token (shown once), revoking it. */
export const scimApi = {
  status: (signal?: AbortSignal) => send("getScimStatus", { signal }),
  createToken: () => send("createScimToken"),
  revokeToken: () => send("revokeScimToken"),
};

/** The SCIM base URL and the token's dates. */
export function useScimStatus() {
  return useApi(scimApi.status, [], { what: "SCIM settings" });
}
