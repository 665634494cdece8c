import type { SsoBody } from "@shared/sso";
import { apiHref, call, client } from "@web/lib/api";
import { useApi } from "@web/lib/use-api";

/** The sso feature's calls on the employer dashboard: the connection, saving it (checked at once), removing it. */
export const ssoApi = {
  connection: (signal?: AbortSignal) => call(client.GET("/api/employer/sso", { signal })),
  save: (body: SsoBody) => call(client.PUT("/api/employer/sso", { body })),
  remove: () => call(client.DELETE("/api/employer/sso")),
  /** where providers send people back: the same for every organisation */
  redirectUri: () => new URL(apiHref("/api/auth/sso/callback"), window.location.origin).href,
};

/** The organisation's single sign-on connection (null when none). */
export function useSsoConnection() {
  return useApi(ssoApi.connection, [], { what: "single sign-on settings" });
}
