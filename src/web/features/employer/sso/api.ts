import type { SsoBody } from "@shared/sso";
import { apiHref, send } from "@web/lib/api";
import { useApi } from "@web/lib/use-api";

/** The sso feature's calls on the employer dashboard: the connection, saving it (checked at once), removing it. */
export const ssoApi = {
  connection: (signal?: AbortSignal) => send("getSso", { signal }),
  save: (body: SsoBody) => send("saveSso", { body }),
  remove: () => send("removeSso"),
  /** where providers send people back: the same for every organisation */
  redirectUri: () => new URL(apiHref("ssoCallback"), window.location.origin).href,
};

/** The organisation's single sign-on connection (null when none). */
export function useSsoConnection() {
  return useApi(ssoApi.connection, [], { what: "single sign-on settings" });
}
